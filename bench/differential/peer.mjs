// The peer of a differential campaign: reads programs (a JSON array) on stdin, runs each as the
// body of an async function in strict mode, as the seam compiles a program, in a realm of its own,
// as a run has an isolate of its own, and writes their outcomes as a JSON array: `{ value }` or
// `{ error }`.
import { runInNewContext } from 'node:vm'

let input = ''
for await (const chunk of process.stdin) input += chunk
const outcomes = []
for (const program of JSON.parse(input)) {
  try {
    outcomes.push({ value: JSON.parse(JSON.stringify(await runInNewContext(`(async () => {'use strict';\n${program}\n})()`))) })
  } catch (error) {
    outcomes.push({ error: `${error?.name}: ${error?.message}` })
  }
}
process.stdout.write(JSON.stringify(outcomes))
