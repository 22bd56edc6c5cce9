#!/usr/bin/env node
// Checks and lints the OS layer (crates/os) for every target the package publishes: installs each
// target's standard library if it is missing, then runs `cargo check` and `cargo clippy` on the
// crate for it. This proves that the OS-facing code compiles and lints everywhere; whether the
// whole addon builds and passes there is the release workflow's to prove.
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { root, run } from './cargo.mjs'

const { targets } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).napi
const installed = spawnSync('rustup', ['target', 'list', '--installed'], { encoding: 'utf8' }).stdout.split('\n')
const missing = targets.filter((target) => !installed.includes(target))
if (missing.length > 0 && run('rustup', ['target', 'add', ...missing]) !== 0) process.exit(1)

const failed = []
for (const target of targets) {
  for (const step of [['check'], ['clippy', '--all-targets']]) {
    const args = [...step, '-p', 'dsh-os', '--target', target, ...(step[0] === 'clippy' ? ['--', '-D', 'warnings'] : [])]
    console.log(`cargo ${args.join(' ')}`)
    if (run('cargo', args) !== 0) failed.push(`${step[0]} ${target}`)
  }
}
console.log(failed.length === 0 ? `crates/os: checked and linted for ${targets.length} targets` : `failed: ${failed.join(', ')}`)
process.exit(failed.length === 0 ? 0 : 1)
