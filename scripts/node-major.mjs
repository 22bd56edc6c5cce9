#!/usr/bin/env node
// Prints the path of a Node binary of the given major, installed from the registry's
// `node-<platform>-<arch>` package into .cache/ (kept between runs). The running Node is used
// when it already is that major.
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { root } from './cargo.mjs'

export function nodeBinary(major) {
  if (Number(process.versions.node.split('.')[0]) === Number(major)) return process.execPath
  const prefix = join(root, '.cache', `node-${major}`)
  const name = `node-${process.platform}-${process.arch}`
  const binary = join(prefix, 'node_modules', name, 'bin', process.platform === 'win32' ? 'node.exe' : 'node')
  if (!existsSync(binary)) {
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, `${name}@${major}`], { stdio: 'inherit' })
  }
  return binary
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(nodeBinary(process.argv[2]))
}
