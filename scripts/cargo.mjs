#!/usr/bin/env node
// Runs cargo with the environment our build needs. When a prebuilt V8 archive for this target
// sits in ../shared/v8 (machines that cannot download it), the v8 crate is pointed at it;
// elsewhere nothing is set and the crate downloads its official archive as usual.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')

const archiveNames = {
  'linux-x64': 'librusty_v8_simdutf_release_x86_64-unknown-linux-gnu.a.gz',
}

/** The environment for cargo: RUSTY_V8_ARCHIVE only when a local archive exists. */
export function cargoEnv(env = process.env) {
  if (env.RUSTY_V8_ARCHIVE) return env
  const name = archiveNames[`${process.platform}-${process.arch}`]
  const archive = name && join(root, '..', 'shared', 'v8', name)
  return archive && existsSync(archive) ? { ...env, RUSTY_V8_ARCHIVE: archive } : env
}

/** Passed to every cargo build and test: Monty declares rust-version 1.96 and builds with the
 * stable 1.95 these machines and the release runners have (see Cargo.toml). */
export const CARGO_FLAGS = ['--ignore-rust-version']

/** The host's target triple: `napi build` builds for it explicitly, so tests share its target dir. */
export function hostTarget() {
  const version = spawnSync('rustc', ['-vV'], { encoding: 'utf8' }).stdout ?? ''
  return /^host: (\S+)$/m.exec(version)?.[1]
}

export function run(command, args, env = {}) {
  const done = spawnSync(command, args, { cwd: root, env: { ...cargoEnv(), ...env }, stdio: 'inherit' })
  if (done.error) throw done.error
  return done.status ?? 1
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  if (args[0] === 'test' && !args.includes('--target')) args.push('--target', hostTarget())
  if (['build', 'test', 'check', 'clippy'].includes(args[0])) args.push(...CARGO_FLAGS)
  process.exit(run('cargo', args))
}
