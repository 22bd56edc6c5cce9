#!/usr/bin/env node
// `npm run hostile-matrix`: every hostile value x every boundary x every stop (compute, wall,
// abort, disposal), each value in a child process. Prints the cells that failed and a summary;
// fails unless every cell settled by its stop plus 150 ms and every child ended idle.
import { BOUNDARIES, HOSTILE_VALUES, STOPS, cellProblem, runValue } from '../__test__/fixtures/hostile-matrix.mjs'

const SLACK_MS = 150
let cells = 0
let failed = 0
for (const value of Object.keys(HOSTILE_VALUES)) {
  const report = await runValue(value, Object.keys(BOUNDARIES), Object.keys(STOPS))
  const problems = []
  if (report.status !== 0 || report.signal) problems.push(`host died (${report.signal ?? `exit ${report.status}`})`)
  for (const cell of report.cells) {
    cells++
    const problem = cellProblem(cell, SLACK_MS)
    if (problem) problems.push(`${cell.stop} / ${cell.boundary}: ${problem}`)
  }
  const { after } = report
  if (after && (after.liveRuns !== 0 || after.runaways.running !== 0 || after.idleCpuMs > 100)) {
    problems.push(`not idle afterwards: ${JSON.stringify(after)}`)
  }
  const slowest = Math.max(...report.cells.map((cell) => cell.settledMs))
  console.log(`${value.padEnd(48)} ${String(report.cells.length).padStart(3)} cells, slowest ${Math.round(slowest)} ms, ` +
    `runaway threads ${after?.runaways.total ?? '?'}${problems.length ? `\n  ${problems.join('\n  ')}` : ''}`)
  failed += problems.length
}
const expected = Object.keys(HOSTILE_VALUES).length * Object.keys(BOUNDARIES).length * Object.keys(STOPS).length
console.log(`${cells} of ${expected} cells ran; ${failed} problem(s)`)
process.exit(failed || cells !== expected ? 1 : 0)
