#!/usr/bin/env node
// Builds the addon (`--release` for the optimised build): first the `dsh-snapshot` tool, which
// writes the startup snapshot in a process of its own, then the `.node` that embeds it.
//
// Every input of the snapshot (the world's JavaScript, the extension, V8's flags) is compiled into
// the tool, so the tool's bytes stand for all of them: when they are unchanged since the snapshot
// was written, the snapshot is kept, its mtime too, and cargo does not rebuild the addon.
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { hostTarget, root, run } from './cargo.mjs'

const release = process.argv.includes('--release')
const target = hostTarget()
const profile = release ? 'release' : 'debug'
const step = (status) => { if (status !== 0) process.exit(status) }

step(run('cargo', ['build', '--bin', 'dsh-snapshot', '--target', target, ...(release ? ['--release'] : [])]))
const tool = join(root, 'target', target, profile, 'dsh-snapshot')
const snapshot = join(root, 'target', `dsh-snapshot.${profile}.bin`)
const stamp = `${snapshot}.tool-sha256`
const toolHash = createHash('sha256').update(readFileSync(tool)).digest('hex')
const current = existsSync(snapshot) && existsSync(stamp) && readFileSync(stamp, 'utf8') === toolHash
if (current) {
  console.log(`dsh-snapshot: inputs unchanged, keeping ${snapshot}`)
} else {
  rmSync(stamp, { force: true })
  step(run(tool, [snapshot]))
  writeFileSync(stamp, toolHash)
}

const napi = join(root, 'node_modules', '.bin', 'napi')
step(run(napi, ['build', '--platform', '--target', target, '--no-js', '--dts', 'binding.d.ts', ...process.argv.slice(2)], { DSH_SNAPSHOT: snapshot }))
