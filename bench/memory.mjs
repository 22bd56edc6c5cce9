#!/usr/bin/env node
// `npm run bench:memory`: allocation-heavy programs, each alone and four at once, each case in a
// process of its own. For each: resident memory above the idle process at its peak, and one
// second after the runs settled. Writes bench/memory.json and prints the README's table.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'

const CAP_MB = 64
const PROGRAMS = {
  'string doubling': "let s = 'ab'; for (;;) s = (s + s).slice(1) + 'c'",
  // ICU's services take at most 2^24 code units: these two work at that limit.
  'toUpperCase at the ICU limit': "return '\\u0101'.repeat(2 ** 24).toUpperCase().length",
  'array of objects': 'const a = []; for (;;) a.push({ n: a.length })',
  'one array far past the cap': 'return new Array(1e8).fill(0).length',
  'regular expression replace': "return 'a'.repeat(3e7).replace(/a/g, 'bb').length",
  'regular expression match': "return 'a'.repeat(6e7).match(/a/g).length",
  'split': "return 'a,'.repeat(3e7).split(',').length",
  'string spread': "return [...'a'.repeat(3e7)].length",
  // The array guard ends it before V8 asks for 240 MB at once (docs/hostile-programs.md).
  'an array whose elements pass the cap': 'return new Array(3e7).fill(0).length',
  'JSON.stringify': "return JSON.stringify(new Array(2 ** 21).fill('x'.repeat(30))).length",
  // Listed lazily in JavaScript by the for-in guard (docs/listing-guards.md).
  'for-in over a long typed array': 'let n = 0; for (const k in new Uint8Array(2 ** 24)) n++; return n',
  'JSON.stringify of a nested typed array': 'return JSON.stringify({ list: [new Uint8Array(2 ** 24)] }).length',
  'normalize at the ICU limit': "return '\\u0101'.repeat(2 ** 24).normalize('NFD').length",
  'Intl.Segmenter': "return [...new Intl.Segmenter('en', { granularity: 'word' }).segment('ab cd '.repeat(2e6))].length",
  'typed arrays': 'const xs = []; for (;;) xs.push(new Uint8Array(1 << 20))',
  'Map and Set': 'const m = new Map(), s = new Set(); for (let i = 0; ; i++) { m.set(i, i); s.add(-i) }',
  closures: 'const fs = []; for (let i = 0; ; i++) fs.push(() => i)',
}

const child = new URL('./memory-child.mjs', import.meta.url).pathname
const rows = []
for (const [name, program] of Object.entries(PROGRAMS)) {
  for (const copies of [1, 4]) {
    const config = { maxOldGenerationSizeMb: CAP_MB, computeMs: 20_000, maxWallMs: 60_000 }
    const output = execFileSync(process.execPath, [child, JSON.stringify(config), program, String(copies)], { encoding: 'utf8', timeout: 120_000 })
    const row = { name, copies, ...JSON.parse(output.trim().split('\n').at(-1)) }
    rows.push(row)
    console.error(`${name} x${copies}: ${row.kinds.join('/')} peak +${row.peakAboveMb.toFixed(0)} MB, after 1 s +${row.afterAboveMb.toFixed(0)} MB`)
  }
}
writeFileSync(new URL('./memory.json', import.meta.url), JSON.stringify({ capMb: CAP_MB, node: process.version, rows }, null, 2) + '\n')
console.log(`| program (cap ${CAP_MB} MB) | ending | peak above idle, 1 run | 4 at once | 1 s after, 1 run | 4 at once |`)
console.log('| --- | --- | --- | --- | --- | --- |')
for (const name of Object.keys(PROGRAMS)) {
  const [one, four] = [1, 4].map((copies) => rows.find((row) => row.name === name && row.copies === copies))
  const mb = (value) => `${Math.max(0, value).toFixed(0)} MB`
  console.log(`| ${name} | ${one.kinds.join(', ')} | ${mb(one.peakAboveMb)} | ${mb(four.peakAboveMb)} | ${mb(one.afterAboveMb)} | ${mb(four.afterAboveMb)} |`)
}
