import type { Context } from '@deepseek-ai/cordis'
import { CodeRuntime, type CodeRunRequest, type CodeRunResult } from '@deepseek-ai/dsh-code-runtime'
import type Schema from '@deepseek-ai/schemastery'

export interface Config {
  /** Busy-time budget of one run: CPU time of its isolate thread, in milliseconds. Default 60000. */
  computeMs?: number
  /** Wall-clock ceiling of one run, in milliseconds; never pauses. At most 2147483647. Default 600000. */
  maxWallMs?: number
  /** Cap on bytes(JSON(logs)) + bytes(JSON(value or failure message)). Default 67108864. */
  maxOutputBytes?: number
  /** Heap cap of one run in MiB; ArrayBuffer memory is refused past it too. Default 512. */
  maxOldGenerationSizeMb?: number
  /**
   * Isolates prepared ahead of demand (ours alone; a positive whole number). Each serves exactly one
   * run, then a replacement is prepared. Default 2.
   */
  isolatePool?: number
}

/** What one run cost. */
export interface CodeRunUsage {
  busyMs: number
  wallMs: number
  /** From the start of the run until the program began: isolate creation and bootstrap. */
  startupMs: number
  bindingCalls: number
  /** Wall time during which at least one binding call was waiting on the host. */
  bindingWaitMs: number
  /** The V8 heap's committed size at the end, plus the most ArrayBuffer memory held at once. */
  heapPeakBytes: number
  /** Bytes of the result counted against maxOutputBytes. */
  outputBytes: number
}

/** `ctx.codeRuntime`, backed by one V8 isolate per run. */
export declare class V8CodeRuntime extends CodeRuntime {
  static Config: Schema<Config>
  readonly language: 'typescript'
  readonly isolation: 'v8-isolate'
  constructor(ctx: Context, config?: Config)
  run(request: CodeRunRequest): Promise<CodeRunResult>
  /** Outside the seam: the same run, with what it cost. */
  runWithUsage(request: CodeRunRequest): Promise<{ result: CodeRunResult; usage: CodeRunUsage }>
}

export default V8CodeRuntime
