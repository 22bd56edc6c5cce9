import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import ts from 'typescript'
import { V8CodeRuntime } from './helpers.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

test('index.d.ts and the generated binding.d.ts compile, and declare every name they use', () => {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--allowImportingTsExtensions']
  const files = ['index.d.ts', 'binding.d.ts', '__test__/fixtures/types/use.ts']
  // Throws with tsc's diagnostics when any file fails to type-check.
  execFileSync(process.execPath, [tsc, ...args, ...files], { cwd: root, encoding: 'utf8' })
})

test('index.d.ts declares exactly the Config keys the plugin accepts', () => {
  const source = ts.createSourceFile('index.d.ts', readFileSync(join(root, 'index.d.ts'), 'utf8'), ts.ScriptTarget.Latest)
  const config = source.statements.find((node) => ts.isInterfaceDeclaration(node) && node.name.text === 'Config')
  const declared = config.members.map((member) => member.name.text).sort()
  const accepted = Object.keys(V8CodeRuntime.Config({})).sort()
  assert.deepStrictEqual(declared, accepted)
})
