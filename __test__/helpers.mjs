// Shared set-up: a fresh cordis context with the plugin loaded, as a host would do it.
import { createRequire } from 'node:module'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { Context } from '@deepseek-ai/cordis'
import V8CodeRuntime from 'dsh-code-runtime-v8'

export { V8CodeRuntime }

const native = createRequire(import.meta.url)('../lib/native.cjs')

/** Loads the plugin into a new context; `dispose()` unloads it. */
export async function setup(config) {
  const ctx = new Context()
  const fiber = await ctx.plugin(V8CodeRuntime, config)
  return { ctx, fiber, runtime: ctx.get('codeRuntime'), dispose: () => fiber.dispose() }
}

/** The PTC consumer's namespace shape: `tools`, rejections as `ToolCallError` with `toolName`. */
export function tools(functions) {
  return [{ global: 'tools', functions, errorClass: { name: 'ToolCallError', memberNameProperty: 'toolName' } }]
}

/** Bytes the ledger counts for a result. */
export function outputBytes(result) {
  const tail = result.error ? result.error.message : result.value
  return Buffer.byteLength(JSON.stringify(result.logs)) + (tail === undefined ? 0 : Buffer.byteLength(JSON.stringify(tail)))
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until `check()` is true, up to `ms`; resolves with whether it became true. */
export async function until(check, ms) {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) return false
    await sleep(5)
  }
  return true
}

/** A full garbage collection of Node's heap, with or without `--expose-gc`. */
export const collectGarbage = globalThis.gc ?? (() => {
  setFlagsFromString('--expose-gc')
  return runInNewContext('gc')
})()

/** Threads of this process, from /proc. */
export async function threadCount() {
  const { readdir } = await import('node:fs/promises')
  return (await readdir('/proc/self/task')).length
}

/**
 * What `read()` gives once it stops falling towards `target`: a thread that has reported its end
 * still takes a moment to leave /proc, and the watchdog lets go of a settled run on its next poll.
 * Gives up after a second and returns what it sees.
 */
export async function settledAt(read, target) {
  let value = await read()
  for (let waited = 0; value > target && waited < 1000; waited += 10) {
    await sleep(10)
    value = await read()
  }
  return value
}

/** Milliseconds from now until no run's state is left (no live run, no thread still inside one), or
 * `null` past `limit`. */
export async function msUntilNoRunIsLeft(limit) {
  const start = performance.now()
  while (native.liveRuns() > 0 || native.runawayThreads().running > 0) {
    if (performance.now() - start > limit) return null
    await sleep(5)
  }
  return performance.now() - start
}
