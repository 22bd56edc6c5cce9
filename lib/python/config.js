// PythonCodeRuntime's configuration: the keys, defaults and load-time checks of the seam's
// Python backend (`@deepseek-ai/dsh-code-runtime-python`), and ours beside them.
import z from '@deepseek-ai/schemastery'
import { PREFIX } from '../config.js'

/** Node clamps a longer setTimeout delay to 1 ms. */
const MAX_TIMER_DELAY_MS = 2_147_483_647
/** The truncation marker must fit the log budget. */
export const MIN_LOG_BYTES = 64
/** The largest frame the host reads from an interpreter; a value or log budget must fit one. */
export const MAX_FRAME_BYTES = 64 << 20
/** What an interpreter needs before it runs anything (measured: 3.11 takes about 25 MiB). */
const MIN_ADDRESS_SPACE_MB = 64

export const PythonConfig = z.object({
  engine: z.union(['cpython', 'monty']).default('cpython')
    .description("The interpreter: 'cpython', the real one, or 'monty', pydantic's Rust interpreter of a Python subset; either in a process of its own per run, confined by the kernel."),
  cpuSeconds: z.number().default(60)
    .description('CPU budget of one run, in seconds (RLIMIT_CPU of its process).'),
  maxWallMs: z.number().default(600_000)
    .description('Wall-clock ceiling of one run, in milliseconds.'),
  addressSpaceMb: z.number().default(512)
    .description('Address space of one run\'s process, in MiB (RLIMIT_AS).'),
  maxLogBytes: z.number().default(65_536)
    .description('Bytes of printed text kept in `logs`; past it, capture stops and a marker line ends the logs.'),
  maxValueBytes: z.number().default(32_768)
    .description('Bytes of the return value\'s compact JSON; past it, the run fails as output-limit.'),
  graceMs: z.number().default(3000)
    .description('After an abort or a budget kills a run\'s process, how long the run waits for it to be gone before it settles anyway.'),
  pythonBin: z.string().default('python3')
    .description('The interpreter: a path, or a name looked up on PATH when the runtime is made.'),
  prepared: z.number().default(2)
    .description('Interpreters started ahead of demand; each serves exactly one run.'),
  readablePaths: z.array(z.string()).default([])
    .description('Files and directories the programs may read besides the interpreter\'s own (its standard library and site-packages).'),
  containmentOnly: z.boolean().default(false)
    .description('Run even where the kernel sandbox is missing (macOS, old kernels), with only the process, its budgets and an empty environment between the program and the host.'),
})

const positiveWhole = (config, key) => {
  const value = config[key]
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`${PREFIX} config.${key} must be a positive whole number, got ${String(value)}`)
}

/** Checks a schema-resolved config; throws the first violation. */
export function checkPythonConfig(config) {
  for (const key of ['cpuSeconds', 'maxWallMs', 'addressSpaceMb', 'maxLogBytes', 'maxValueBytes', 'graceMs']) positiveWhole(config, key)
  if (!Number.isSafeInteger(config.prepared) || config.prepared < 0) {
    throw new Error(`${PREFIX} config.prepared must be a whole number, got ${String(config.prepared)}`)
  }
  if (config.maxWallMs > MAX_TIMER_DELAY_MS || config.graceMs > MAX_TIMER_DELAY_MS) {
    const key = config.maxWallMs > MAX_TIMER_DELAY_MS ? 'maxWallMs' : 'graceMs'
    throw new Error(`${PREFIX} config.${key} must be at most ${MAX_TIMER_DELAY_MS} (Node clamps a longer setTimeout delay to 1ms), got ${config[key]}`)
  }
  if (config.maxLogBytes < MIN_LOG_BYTES) {
    throw new Error(`${PREFIX} config.maxLogBytes must be at least ${MIN_LOG_BYTES} (the truncation marker must fit), got ${config.maxLogBytes}`)
  }
  for (const key of ['maxLogBytes', 'maxValueBytes']) {
    // Escaped for the wire, a byte may take six.
    if (config[key] * 6 > MAX_FRAME_BYTES) {
      throw new Error(`${PREFIX} config.${key} must be at most ${Math.floor(MAX_FRAME_BYTES / 6)} (one frame must carry it), got ${config[key]}`)
    }
  }
  if (config.addressSpaceMb < MIN_ADDRESS_SPACE_MB) {
    throw new Error(`${PREFIX} config.addressSpaceMb must be at least ${MIN_ADDRESS_SPACE_MB} (the interpreter needs it to start), got ${config.addressSpaceMb}`)
  }
  return config
}
