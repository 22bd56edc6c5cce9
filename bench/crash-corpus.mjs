#!/usr/bin/env node
// `npm run crash-corpus`: the full crash corpus, each case in a child process of its own: every
// nesting shape at 10^3 to 10^6 levels, single allocations from 1x to 16x the heap cap at 4, 16,
// 64 and 512 MB, binding answers from 1x to 16x the cap, and each of those as four runs at once. Prints one line per case and fails if any child died or hung.
import { NESTING_SHAPES, runInChild } from '../__test__/fixtures/crash-corpus.mjs'

const cases = []
for (const [shape, make] of Object.entries(NESTING_SHAPES)) {
  for (const n of [1e3, 1e4, 1e5, 1e6]) cases.push([`${shape} x${n}`, {}, make(n)])
}
for (const mb of [4, 16, 64, 512]) {
  for (const times of [1, 4, 16]) {
    const chars = Math.min(mb * times * 2 ** 20, 2 ** 29 - 24)
    const config = { maxOldGenerationSizeMb: mb, computeMs: 30_000 }
    cases.push([`${mb} MB: one string of ${times}x the cap`, config, `return 'a'.repeat(${chars}).toUpperCase().length`])
    cases.push([`${mb} MB: one array of ${times}x the cap`, config, `return new Array(${Math.floor(chars / 8)}).fill(0).length`])
    cases.push([`${mb} MB: normalize over ${times}x the cap`, config, `return 'ẛ'.repeat(${Math.floor(chars / 4)}).normalize('NFKD').length`])
    cases.push([`${mb} MB: a binding answer of ${times}x the cap`, { maxOldGenerationSizeMb: mb }, 'return (await tools.answer({})).length', Math.min(mb * times * 2 ** 20, 2 ** 29 - 24)])
  }
}

// Every allocation case again, as four runs at once in one host.
for (const [name, config, program, answerBytes] of cases.filter(([name]) => name.includes(' MB: '))) {
  cases.push([`${name}, four runs at once`, config, program, answerBytes, 4])
}

let died = 0
for (const [name, config, program, answerBytes, copies] of cases) {
  const started = performance.now()
  const { outcome, status, signal } = await runInChild(config, program, answerBytes, copies)
  const ms = Math.round(performance.now() - started)
  if (status !== 0 || signal || !outcome) died++
  const ending = outcome ? `${outcome.kinds.join('/')}${outcome.message ? `: ${outcome.message.split('\n')[0].slice(0, 90)}` : ''}` : `host died (${signal ?? `exit ${status}`})`
  console.log(`${name.padEnd(70)} ${String(ms).padStart(6)} ms  ${ending}`)
}
console.log(`${cases.length - died} passed, ${died} failed`)
process.exit(died ? 1 : 0)
