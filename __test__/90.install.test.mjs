// The package as users get it: packed tarballs installed into an empty project with the real cordis
// packages, mounted by name from a composition YAML, on every supported Node major.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { test, before, after } from 'node:test'
import assert from 'node:assert/strict'
import { nodeBinary } from '../scripts/node-major.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))
const MAJORS = [20, 22, 24, 26]
const EXPECTED = { logs: ['halfway 42'], value: { doubled: 42, failure: { typed: true, name: 'ToolCallError', toolName: 'fail', message: 'denied' } } }

const MAIN = `
import { Context } from '@deepseek-ai/cordis'
import Loader from '@deepseek-ai/cordis-plugin-loader'
import Include from '@deepseek-ai/cordis-plugin-include'

const root = new Context()
await root.plugin(Loader, { baseUrl: import.meta.url })
await root.plugin(Include, { path: new URL(process.argv[2] ?? './cordis.yml', import.meta.url).href })
await root.loader.await()
const result = await root.get('codeRuntime').run({
  program: \`
    const r: { n: number } = await tools.double({ n: 21 })
    console.log('halfway', r.n)
    let failure
    try { await tools.fail({}) } catch (e) { failure = { typed: e instanceof ToolCallError, name: e.name, toolName: e.toolName, message: e.message } }
    return { doubled: r.n, failure }
  \`,
  bindings: [{
    global: 'tools',
    functions: { double: async ({ n }) => ({ n: n * 2 }), fail: async () => { throw new Error('denied') } },
    errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' },
  }],
})
console.log(JSON.stringify(result))
process.exit(0)
`

const WORKER = `
import { Worker } from 'node:worker_threads'
const worker = new Worker(new URL('./main.mjs', import.meta.url), { stdout: true })
let out = ''
worker.stdout.on('data', (chunk) => { out += chunk })
worker.on('exit', (code) => { process.stdout.write(out); process.exit(code) })
`

let project
let installMs
before(() => {
  execFileSync(process.execPath, [join(root, 'scripts', 'pack-local.mjs')], { stdio: 'inherit' })
  const tarballs = readdirSync(join(root, 'artifacts')).filter((name) => name.endsWith('.tgz')).map((name) => join(root, 'artifacts', name))
  project = mkdtempSync(join(tmpdir(), 'dsh-v8-install-'))
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'install-check', private: true, type: 'module' }))
  writeFileSync(join(project, 'cordis.yml'), '- id: code-runtime\n  name: dsh-code-runtime-v8\n')
  writeFileSync(join(project, 'cordis-process.yml'), '- id: code-runtime\n  name: dsh-code-runtime-v8\n  config:\n    isolation: process\n')
  writeFileSync(join(project, 'main.mjs'), MAIN)
  writeFileSync(join(project, 'worker.mjs'), WORKER)
  const started = performance.now()
  execFileSync('npm', ['install', '--no-audit', '--no-fund', ...tarballs, '@deepseek-ai/cordis@4.0.4',
    '@deepseek-ai/dsh-code-runtime@0.1.0-rc.8', '@deepseek-ai/dsh-invariants@0.1.0-rc.8',
    '@deepseek-ai/cordis-plugin-loader@1.0.5', '@deepseek-ai/cordis-plugin-include@1.0.9'], { cwd: project, stdio: 'inherit' })
  installMs = performance.now() - started
})
after(() => rmSync(project, { recursive: true, force: true }))

for (const major of MAJORS) {
  test(`installed from tarballs, it mounts by name and runs on Node ${major}, in process and in helper processes`, () => {
    const node = nodeBinary(major)
    const started = performance.now()
    const out = execFileSync(node, ['main.mjs'], { cwd: project, encoding: 'utf8' })
    assert.deepStrictEqual(JSON.parse(out), EXPECTED)
    const inHelpers = execFileSync(node, ['main.mjs', './cordis-process.yml'], { cwd: project, encoding: 'utf8' })
    assert.deepStrictEqual(JSON.parse(inHelpers), EXPECTED)
    console.log(`# Node ${execFileSync(node, ['--version'], { encoding: 'utf8' }).trim()}: install ${installMs.toFixed(0)} ms, first result ${(performance.now() - started).toFixed(0)} ms after start`)
  })
}

test('it loads and runs inside a worker_thread', () => {
  const out = execFileSync(process.execPath, ['worker.mjs'], { cwd: project, encoding: 'utf8' })
  assert.deepStrictEqual(JSON.parse(out), EXPECTED)
})
