#!/usr/bin/env node
// `npm run bench:idioms`: the idioms the runtime's guards stand in front of (replaced built-ins,
// rewritten for-in loops, spreads and rests), each timed by the program itself, in turn: in our
// runtime, in a fresh worker of the Node running this script (each run's own isolate, as the
// reference backend runs programs and as ours does), and in this script's own realm, where V8's
// compilation cache hands each round after the first the code the rounds before compiled. Prints
// medians and the ratios to both; writes bench/idioms.json with the date, commit and machine.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { nodeBinary } from '../scripts/node-major.mjs'
import { median } from './stats.mjs'

// Node 24 is the peer: re-run under it when older.
if (Number(process.versions.node.split('.')[0]) < 24) {
  execFileSync(nodeBinary(24), [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' })
  process.exit(0)
}

const { Context } = await import('@deepseek-ai/cordis')
const { default: V8CodeRuntime } = await import('dsh-code-runtime-v8')

/** Each body sets up, then runs `loop` `n` times between the two clock reads and returns the ms. */
const timed = (setup, loop, n) => `${setup}
let sink = 0
const started = performance.now()
for (let i = 0; i < ${n}; i++) { ${loop} }
const ms = performance.now() - started
if (sink === 0.5) console.log(sink)
return ms`

export const IDIOMS = {
  'Array.prototype.slice.call(arguments)': timed('function f() { return Array.prototype.slice.call(arguments) }', 'sink += f(1, 2, 3).length', 200_000),
  'Array.from(arguments)': timed('function f() { return Array.from(arguments) }', 'sink += f(1, 2, 3).length', 200_000),
  'array toLocaleString': timed('const a = [1, 2.5, 1000]', 'sink += a.toLocaleString().length', 20_000),
  'typed array toLocaleString': timed('const t = new Float64Array([1, 2.5, 1000])', 'sink += t.toLocaleString().length', 20_000),
  'Number toLocaleString': timed('', 'sink += (1234.5 + i).toLocaleString().length', 20_000),
  'for-in over a 3-key object': timed('const o = { a: 1, b: 2, c: 3 }', 'for (const k in o) sink += k.length', 200_000),
  'for-in over 1000 class instances in turn': timed('class C { constructor(j) { this.a = j; this.b = 2; this.c = 3 } }\nconst os = []\nfor (let j = 0; j < 1000; j++) os.push(new C(j))', 'for (const k in os[i % 1000]) sink += k.length', 200_000),
  'slice.call on a typed array': timed('const t = new Uint8Array(16)', 'sink += Array.prototype.slice.call(t).length', 100_000),
  'map.call on a typed array': timed('const t = new Uint8Array(16)', 'sink += Array.prototype.map.call(t, (x) => x + 1).length', 100_000),
  'join.call on a typed array': timed('const t = new Uint8Array(16)', "sink += Array.prototype.join.call(t, ',').length", 100_000),
  'filter.call on an array-like': timed("const o = { length: 8, 0: 1, 1: 2, 2: 3, 3: 4, 4: 5, 5: 6, 6: 7, 7: 8 }", 'sink += Array.prototype.filter.call(o, (x) => x & 1).length', 100_000),
  'object spread of a 3-key object': timed('const o = { a: 1, b: 2, c: 3 }', 'sink += ({ ...o, d: i }).d', 500_000),
  'object rest of a 3-key object': timed('const o = { a: 1, b: 2, c: 3 }', 'const { a, ...r } = o; sink += r.b', 500_000),
  'object rest inside an array pattern': timed("const e = ['k', { id: 1, n: 2 }]", 'const [k, { id, ...r }] = e; sink += r.n', 200_000),
  'a parameter with an object rest': timed('const f = ({ a, ...r }) => r.b', 'sink += f({ a: 1, b: 2 })', 200_000),
  'Object.entries(...).map(([k, { id, ...rest }]) => ...)': timed("const o = { a: { id: 1, n: 2 }, b: { id: 2, n: 3 } }", 'sink += Object.entries(o).map(([k, { id, ...rest }]) => rest.n).length', 100_000),
  'JSON.stringify of a small object': timed("const o = { a: 1, b: [1, 2, 3], c: 'x' }", 'sink += JSON.stringify(o).length', 200_000),
  'string replace with a global regexp': timed("const s = 'a,b,c,d,e,f'", "sink += s.replace(/,/g, ';').length", 200_000),
  'includes on a 3-element array': timed("const a = ['x', 'y', 'z']", "sink += a.includes('z') ? 1 : 0", 200_000),
  'map, filter and reduce over 50 elements': timed('const a = Array.from({ length: 50 }, (_, j) => j)', 'sink += a.map((x) => x * 2).filter((x) => x % 3).reduce((s, x) => s + x, 0)', 20_000),
  'a spread of a 300 000-element array, its literal\'s only member': timed('const a = Array.from({ length: 300_000 }, (_, j) => j)', 'sink += Object.keys({ ...a }).length', 2),
  'a spread of a 300 000-element array beside other members': timed('const a = Array.from({ length: 300_000 }, (_, j) => j)', 'sink += Object.keys({ first: 1, ...a, last: 2 }).length', 2),
}

const AsyncFunction = (async () => {}).constructor

/** The ms `program` reports in a worker of its own. */
function inFreshWorker(program) {
  const source = `const { parentPort, workerData } = require('node:worker_threads')
const AsyncFunction = (async () => {}).constructor
new AsyncFunction(workerData)().then((ms) => parentPort.postMessage(ms))`
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: program })
    worker.once('message', (ms) => { resolve(ms); worker.terminate() })
    worker.once('error', reject)
  })
}

const ctx = new Context()
const fiber = ctx.plugin(V8CodeRuntime, { computeMs: 120_000, maxWallMs: 600_000 })
await fiber
const runtime = ctx.get('codeRuntime')
const rows = []
for (const [name, program] of Object.entries(IDIOMS)) {
  const ours = []
  const worker = []
  const realm = []
  for (let round = 0; round < 5; round++) {
    const result = await runtime.run({ program, bindings: [] })
    if (result.error) throw new Error(`${name}: ${result.error.message}`)
    ours.push(result.value)
    worker.push(await inFreshWorker(program))
    realm.push(await new AsyncFunction(program)())
  }
  const row = { name, oursMs: median(ours), nodeWorkerMs: median(worker), nodeRealmMs: median(realm) }
  row.ratio = row.oursMs / row.nodeWorkerMs
  row.ratioToRealm = row.oursMs / row.nodeRealmMs
  rows.push(row)
  const ms = (value) => `${value.toFixed(2).padStart(8)} ms`
  console.log(`${name.padEnd(58)} ours ${ms(row.oursMs)}  worker ${ms(row.nodeWorkerMs)} ${row.ratio.toFixed(2).padStart(6)}x  realm ${ms(row.nodeRealmMs)} ${row.ratioToRealm.toFixed(2).padStart(6)}x`)
}
await fiber.dispose()

const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD']).toString().trim()
const machine = `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, ${os.platform()} ${os.release()}`
writeFileSync(new URL('./idioms.json', import.meta.url), `${JSON.stringify({ date: new Date().toISOString().slice(0, 10), commit, machine, node: process.version, rows }, null, 2)}\n`)
