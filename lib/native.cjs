// Loads the addon built for this platform: next to the package when built from source, else
// from the per-platform package that npm installed as an optional dependency.
'use strict'

const { existsSync } = require('node:fs')
const { join } = require('node:path')

const SUPPORTED = {
  'linux-x64': 'linux-x64-gnu',
  'linux-arm64': 'linux-arm64-gnu',
  'darwin-x64': 'darwin-x64',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'win32-x64-msvc',
}

function isMusl() {
  const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null
  return report ? !report.header?.glibcVersionRuntime : existsSync('/etc/alpine-release')
}

function load() {
  const platform = `${process.platform}-${process.arch}`
  const target = SUPPORTED[platform]
  if (!target || (process.platform === 'linux' && isMusl())) {
    const supported = Object.values(SUPPORTED).join(', ')
    throw new Error(`dsh-code-runtime-v8: no prebuilt binary for ${platform}${process.platform === 'linux' && target ? ' (musl)' : ''}; supported: ${supported}`)
  }
  const local = join(__dirname, '..', `dsh-code-runtime-v8.${target}.node`)
  if (existsSync(local)) return require(local)
  try {
    return require(`dsh-code-runtime-v8-${target}`)
  } catch (error) {
    throw new Error(`dsh-code-runtime-v8: the binary package dsh-code-runtime-v8-${target} is not installed (was the optional dependency skipped?)`, { cause: error })
  }
}

module.exports = load()
