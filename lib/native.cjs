// Loads the addon built for this platform: next to the package when built from source, else
// from the per-platform package that npm installed as an optional dependency; the helper process
// of `isolation: 'process'` sits beside it.
'use strict'

const { accessSync, constants, existsSync } = require('node:fs')
const { dirname, join } = require('node:path')

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

/** Where the helper process of `isolation: 'process'` is read from, to override the shipped one. */
const HELPER_OVERRIDE = 'DSH_CODE_RUNTIME_V8_HELPER'

function load() {
  const platform = `${process.platform}-${process.arch}`
  const target = SUPPORTED[platform]
  if (!target || (process.platform === 'linux' && isMusl())) {
    const supported = Object.values(SUPPORTED).join(', ')
    throw new Error(`dsh-code-runtime-v8: no prebuilt binary for ${platform}${process.platform === 'linux' && target ? ' (musl)' : ''}; supported: ${supported}`)
  }
  // The helper sits beside the addon, wherever that was found.
  const helperName = `dsh-code-runtime-v8-helper.${target}${process.platform === 'win32' ? '.exe' : ''}`
  const withHelper = (addon, dir) => Object.assign(addon, { helperPath: () => helperAt(process.env[HELPER_OVERRIDE] || join(dir, helperName)) })
  const local = join(__dirname, '..', `dsh-code-runtime-v8.${target}.node`)
  if (existsSync(local)) return withHelper(require(local), join(__dirname, '..'))
  const name = `dsh-code-runtime-v8-${target}`
  let addon
  try {
    addon = require(name)
  } catch (error) {
    throw new Error(`dsh-code-runtime-v8: the binary package ${name} is not installed (was the optional dependency skipped?)`, { cause: error })
  }
  return withHelper(addon, dirname(require.resolve(`${name}/package.json`)))
}

/** `path`, once it is known to be a file this process may execute. */
function helperAt(path) {
  try {
    accessSync(path, constants.X_OK)
  } catch (error) {
    throw new Error(`dsh-code-runtime-v8: isolation 'process' needs the helper process at ${path}, which cannot be executed (${error.code}); set ${HELPER_OVERRIDE} to point at another`, { cause: error })
  }
  return path
}

module.exports = load()
