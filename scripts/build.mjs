#!/usr/bin/env node
// Builds the addon (`--release` for the optimised build): first the `dsh-snapshot` tool, which
// writes the startup snapshot in a process of its own, then the `.node` that embeds it.
import { join } from 'node:path'
import { hostTarget, root, run } from './cargo.mjs'

const release = process.argv.includes('--release')
const target = hostTarget()
const profile = release ? 'release' : 'debug'
const step = (status) => { if (status !== 0) process.exit(status) }

step(run('cargo', ['build', '--bin', 'dsh-snapshot', '--target', target, ...(release ? ['--release'] : [])]))
const snapshot = join(root, 'target', 'dsh-snapshot.bin')
step(run(join(root, 'target', target, profile, 'dsh-snapshot'), [snapshot]))

const napi = join(root, 'node_modules', '.bin', 'napi')
step(run(napi, ['build', '--platform', '--target', target, '--no-js', '--dts', 'binding.d.ts', ...process.argv.slice(2)], { DSH_SNAPSHOT: snapshot }))
