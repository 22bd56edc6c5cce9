#!/usr/bin/env node
// Builds the addon (`--release` for the optimised build): first the `dsh-snapshot` tool, which
// writes the startup snapshot in a process of its own, then the `.node` that embeds it and the
// helper process that embeds it too.
//
// The snapshot's inputs are the tool's bytes (the extensions, V8's flags, the vendored and `node:`
// modules are compiled into it) and the world's modules in src/js/, which deno_core reads from
// disk while the snapshot is made: when none has changed since the snapshot was written, the
// snapshot is kept, its mtime too, and cargo does not rebuild the addon.
import { createHash } from 'node:crypto'
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CARGO_FLAGS, hostTarget, root, run } from './cargo.mjs'

const release = process.argv.includes('--release')
const target = hostTarget()
const profile = release ? 'release' : 'debug'
const step = (status) => { if (status !== 0) process.exit(status) }

step(run('cargo', ['build', '--bin', 'dsh-snapshot', '--target', target, ...(release ? ['--release'] : []), ...CARGO_FLAGS]))
const tool = join(root, 'target', target, profile, process.platform === 'win32' ? 'dsh-snapshot.exe' : 'dsh-snapshot')
const snapshot = join(root, 'target', `dsh-snapshot.${profile}.bin`)
const stamp = `${snapshot}.inputs-sha256`
const inputs = createHash('sha256').update(readFileSync(tool))
const world = join(root, 'src', 'js')
for (const file of readdirSync(world, { recursive: true }).sort()) {
  if (file.endsWith('.js')) inputs.update(`\0${file}\0`).update(readFileSync(join(world, file)))
}
const inputsHash = inputs.digest('hex')
const current = existsSync(snapshot) && existsSync(stamp) && readFileSync(stamp, 'utf8') === inputsHash
if (current) {
  console.log(`dsh-snapshot: inputs unchanged, keeping ${snapshot}`)
} else {
  rmSync(stamp, { force: true })
  step(run(tool, [snapshot]))
  writeFileSync(stamp, inputsHash)
}

// napi's own script, run by this Node: Windows cannot spawn the `.cmd` shim in node_modules/.bin.
const napi = join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')
step(run(process.execPath, [napi, 'build', '--platform', '--target', target, '--no-js', '--dts', 'binding.d.ts', ...process.argv.slice(2), '--', ...CARGO_FLAGS], { DSH_SNAPSHOT: snapshot }))

// The helper process of `isolation: 'process'`, which cargo built with the addon, goes beside
// it, named for the same platform.
const addon = readdirSync(root).find((name) => /^dsh-code-runtime-v8\..+\.node$/.test(name))
const platform = addon.slice('dsh-code-runtime-v8.'.length, -'.node'.length)
const exe = process.platform === 'win32' ? '.exe' : ''
copyFileSync(join(root, 'target', target, profile, `dsh-code-runtime-v8-helper${exe}`), join(root, `dsh-code-runtime-v8-helper.${platform}${exe}`))
