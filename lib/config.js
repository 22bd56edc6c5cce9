// The plugin's configuration: the reference backend's keys and defaults, validated the same way.
import z from '@deepseek-ai/schemastery'

export const PREFIX = 'dsh-code-runtime-v8:'

/** Node clamps a longer setTimeout delay to 1 ms; kept as the reference's bound for compatibility. */
const MAX_TIMER_DELAY_MS = 2_147_483_647
const MIN_OUTPUT_BYTES = 4

export const Config = z.object({
  computeMs: z.number().default(60_000)
    .description('Busy-time budget of one run: CPU time of its isolate thread, in milliseconds.'),
  maxWallMs: z.number().default(600_000)
    .description('Wall-clock ceiling of one run, in milliseconds; never pauses.'),
  maxOutputBytes: z.number().default(67_108_864)
    .description('Cap on bytes(JSON(logs)) + bytes(JSON(value or failure message)).'),
  maxOldGenerationSizeMb: z.number().default(512)
    .description('Heap cap of one run, ArrayBuffer memory included, in MiB.'),
  isolatePool: z.number().default(2)
    .description('Isolates kept prepared ahead of demand; each serves exactly one run, then a new one is prepared.'),
  isolatePoolMax: z.number().default(32)
    .description('Isolates the pool may grow to while runs find none prepared; it shrinks back after 30 s unused.'),
  isolation: z.union(['v8-isolate', 'process']).default('v8-isolate')
    .description("Where runs execute: 'v8-isolate', an isolate in this process; 'process', a sandboxed helper process (isolatePool of them are started ahead of demand)."),
  runsPerHelper: z.number().default(1)
    .description("With isolation 'process': runs one helper serves, one after another, before it exits. Above 1, a helper taken over by one run could see the runs it serves later."),
})

/**
 * Checks a schema-resolved config: every entry but `isolation` (declared keys first, then extras) must be a
 * finite positive number, and two keys have tighter bounds. Throws the first violation.
 */
export function checkConfig(config) {
  for (const [key, value] of Object.entries(config)) {
    if (key === 'isolation') continue
    if (typeof value !== 'number' || !Number.isFinite(value) || !(value > 0)) {
      throw new Error(`${PREFIX} config.${key} must be a positive number, got ${String(value)}`)
    }
  }
  const { maxOutputBytes, maxWallMs, isolatePool, isolatePoolMax } = config
  if (!Number.isSafeInteger(maxOutputBytes) || maxOutputBytes < MIN_OUTPUT_BYTES) {
    throw new Error(`${PREFIX} config.maxOutputBytes must be a safe integer of at least ${MIN_OUTPUT_BYTES}, got ${maxOutputBytes}`)
  }
  if (maxWallMs > MAX_TIMER_DELAY_MS) {
    throw new Error(`${PREFIX} config.maxWallMs must be at most ${MAX_TIMER_DELAY_MS} (Node clamps a longer setTimeout delay to 1ms), got ${maxWallMs}`)
  }
  if (!Number.isSafeInteger(isolatePool)) {
    throw new Error(`${PREFIX} config.isolatePool must be a whole number, got ${isolatePool}`)
  }
  if (!Number.isSafeInteger(isolatePoolMax) || isolatePoolMax < isolatePool) {
    throw new Error(`${PREFIX} config.isolatePoolMax must be a whole number of at least config.isolatePool (${isolatePool}), got ${isolatePoolMax}`)
  }
  if (!Number.isSafeInteger(config.runsPerHelper)) {
    throw new Error(`${PREFIX} config.runsPerHelper must be a whole number, got ${config.runsPerHelper}`)
  }
  return config
}
