#!/usr/bin/env node
// `npm run fuzz -- [--seed N] [--count N] [--minutes M] [--workers W]`: a fuzzing campaign of hostile
// programs (bench/fuzz/generate.mjs), run in a pool of child host processes (bench/fuzz/child.mjs).
// Every program must leave its host alive, settle by its stop plus 150 ms, leave no thread running
// 250 ms later and stay within the memory bound. Prints programs per minute and how many ran clean;
// findings, with their seed and index to reproduce them, go to bench/fuzz-findings.json, each marked
// if it is one that #23 leaves open (bench/fuzz/known-open.mjs) and whether it came back when run
// again alone. Exits non-zero on a new finding that came back, or a host that died.
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { generate } from './fuzz/generate.mjs'
import { knownOpen } from './fuzz/known-open.mjs'

const child = fileURLToPath(new URL('./fuzz/child.mjs', import.meta.url))

function finding(seed, index, problems) {
  const fuzzCase = generate(seed, index)
  return { seed, index, problems, known: knownOpen(fuzzCase, problems), program: fuzzCase.program }
}

/** The verdict on program `index` of campaign `seed`, run alone in a host of its own. */
function runAlone(seed, index) {
  return new Promise((resolve) => {
    const host = spawn(process.execPath, [child, seed, index, 1, 1], { stdio: ['ignore', 'pipe', 'ignore'] })
    let output = ''
    host.stdout.on('data', (chunk) => { output += chunk })
    host.on('exit', (code, signal) => {
      const verdict = output.split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((line) => 'done' in line)
      resolve(verdict ?? { problems: [`the host died (${signal ?? `exit ${code}`})`] })
    })
  })
}

// A program's host mostly waits (for its run's stop, and for its state to go), so workers outnumber
// cores: on two, 3 ran 1 227 programs a minute, 4 ran 1 406 with no finding, 6 ran 1 705 with 4
// findings that were the machine's timing (seeds 46-48).
/** Runs `count` programs of campaign `seed` (or as many as fit in `minutes`); resolves the tally. */
export async function campaign({ seed = 1, count = Infinity, minutes = Infinity, workers = 4, onProgress = () => {} } = {}) {
  const deadline = Date.now() + minutes * 60_000
  const findings = []
  let clean = 0
  let ran = 0
  const started = Date.now()
  // Worker w runs indexes w, w + workers, ...; a worker whose host dies restarts after that program.
  const runWorker = (worker) => new Promise((resolve) => {
    let next = worker
    const launch = () => {
      if (next >= count || Date.now() >= deadline) return resolve()
      const remaining = Math.min(Math.ceil((count - next) / workers), 1_000_000)
      const host = spawn(process.execPath, [child, seed, next, workers, remaining], { stdio: ['ignore', 'pipe', 'pipe'] })
      let current
      let buffered = ''
      let stderr = ''
      host.stderr.on('data', (chunk) => { stderr = (stderr + chunk).slice(-2000) })
      host.stdout.on('data', (chunk) => {
        buffered += chunk
        let newline
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = JSON.parse(buffered.slice(0, newline))
          buffered = buffered.slice(newline + 1)
          if ('start' in line) {
            current = line.start
            if (Date.now() >= deadline) host.kill('SIGKILL')
          } else {
            ran++
            if (line.problems.length === 0) clean++
            else findings.push(finding(seed, line.done, line.problems))
            next = line.done + workers
            current = undefined
            onProgress({ ran, clean, findings: findings.length })
          }
        }
      })
      host.on('exit', (code, signal) => {
        if (current !== undefined && Date.now() < deadline) {
          ran++
          findings.push(finding(seed, current, [`the host died (${signal ?? `exit ${code}`}): ${stderr.trim().slice(-500)}`]))
          next = current + workers
        }
        launch()
      })
    }
    launch()
  })
  await Promise.all(Array.from({ length: workers }, (_, worker) => runWorker(worker)))
  // A finding is run again alone in a fresh host: one that does not come back was the machine's
  // timing, not the program's (a host that died always counts).
  for (const found of findings) {
    if (found.problems.some((problem) => problem.startsWith('the host died'))) continue
    found.reproduced = (await runAlone(seed, found.index)).problems.length > 0
  }
  const elapsedMinutes = (Date.now() - started) / 60_000
  return { seed, ran, clean, findings, perMinute: Math.round(ran / elapsedMinutes) }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const option = (name, fallback) => {
    const at = process.argv.indexOf(`--${name}`)
    return at >= 0 ? Number(process.argv[at + 1]) : fallback
  }
  // The children read it: every run in a helper process.
  if (process.argv.includes('--process')) process.env.DSH_FUZZ_ISOLATION = 'process'
  const tally = await campaign({
    seed: option('seed', Date.now() % 1_000_000),
    count: option('count', Infinity),
    minutes: option('minutes', 10),
    workers: option('workers', undefined),
    onProgress: ({ ran, clean, findings }) => { if (ran % 50 === 0) console.log(`${ran} programs, ${clean} clean, ${findings} findings`) },
  })
  writeFileSync(new URL('./fuzz-findings.json', import.meta.url), JSON.stringify(tally.findings, null, 2) + '\n')
  const fresh = tally.findings.filter((each) => each.known === undefined && each.reproduced !== false)
  const passing = tally.findings.filter((each) => each.reproduced === false).length
  console.log(`seed ${tally.seed}: ${tally.ran} programs, ${tally.clean} clean, ${tally.findings.length} findings `
    + `(${fresh.length} new, ${tally.findings.filter((each) => each.known !== undefined).length} known open, `
    + `${passing} not reproduced alone), ${tally.perMinute} programs a minute`)
  process.exit(fresh.length === 0 ? 0 : 1)
}
