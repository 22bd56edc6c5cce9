// `npm run bench:isolate`: what one isolate costs here, phase by phase (the `dsh-isolate-cost` tool,
// built with the snapshot the addon embeds), beside the floors it cannot go under: a deno_core
// runtime from a minimal snapshot, a bare V8 isolate, and Node's own `vm.createContext()`, which
// makes a context in an existing isolate rather than an isolate.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import v8 from 'node:v8'
import vm from 'node:vm'
import { hostTarget, root, run } from '../scripts/cargo.mjs'

const ISOLATES = 200
const target = hostTarget()
const status = run('cargo', ['build', '--release', '--target', target, '--bin', 'dsh-isolate-cost', '--features', 'isolate-cost'],
  { DSH_SNAPSHOT: join(root, 'target', 'dsh-snapshot.release.bin') })
if (status !== 0) process.exit(status)
const tool = join(root, 'target', target, 'release', process.platform === 'win32' ? 'dsh-isolate-cost.exe' : 'dsh-isolate-cost')
const measured = spawnSync(tool, [String(ISOLATES), ...process.argv.slice(2)], { encoding: 'utf8' })
if (measured.status !== 0) throw new Error(measured.stderr)
// The tool prints two tables, time then memory; Node's own floor joins each.
const [times, memory] = measured.stdout.trimEnd().split('\n\n')

const samples = []
for (let i = 0; i <= ISOLATES; i++) {
  const start = process.hrtime.bigint()
  vm.runInContext('1', vm.createContext({}))
  if (i > 0) samples.push(Number(process.hrtime.bigint() - start) / 1e6)
}
samples.sort((a, b) => a - b)
const NODE_FLOOR = `Node ${process.version}'s vm.createContext() and one script in it (a context, not an isolate)`
console.log(`${times}\n| floor: ${NODE_FLOOR} | ${samples[samples.length >> 1].toFixed(3)} | |\n`)

// A context is in Node's own isolate, whose resident memory moves with everything else the process
// does: what is read is the V8 heap each of a batch of contexts holds (made twice, the second
// counted, collected before each reading).
v8.setFlagsFromString('--expose-gc')
const collect = vm.runInNewContext('gc')
const HELD = 200
let perContext
for (let batch = 0; batch < 2; batch++) {
  collect()
  const before = process.memoryUsage().heapUsed
  const contexts = Array.from({ length: HELD }, () => {
    const context = vm.createContext({})
    vm.runInContext('1', context)
    return context
  })
  collect()
  perContext = (process.memoryUsage().heapUsed - before) / HELD / 2 ** 20
  contexts.length = 0
}
// The tool printed a table only where it could read resident memory.
console.log(memory.startsWith('|') ? `${memory}\n| floor: ${NODE_FLOOR}, its V8 heap only | ${perContext.toFixed(3)} |` : memory)
