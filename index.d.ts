import type { Context } from '@deepseek-ai/cordis'
import { CodeRuntime, type CodeJsonValue, type CodeRunRequest, type CodeRunResult } from '@deepseek-ai/dsh-code-runtime'
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
   * Isolates kept prepared ahead of demand (ours alone; a positive whole number). Each serves exactly
   * one run, then a replacement is prepared. Default 2.
   */
  isolatePool?: number
  /**
   * The most isolates the pool grows to (ours alone; a whole number, at least `isolatePool`): each run
   * that finds none prepared adds one, and each left unused for 30 s goes, down to `isolatePool`.
   * Default 32.
   */
  isolatePoolMax?: number
  /**
   * Where runs execute: `'v8-isolate'`, an isolate on a thread of this process (the default); `'process'`,
   * an isolate in a helper process the kernel confines, one run per helper unless `runsPerHelper` says
   * more (docs/isolation.md). With `'process'`, `isolatePool` counts the helpers started ahead of demand.
   */
  isolation?: 'v8-isolate' | 'process'
  /**
   * With `isolation: 'process'`: runs a helper serves, one after another, before it exits (a whole
   * number). Default 1; above it, a helper taken over by one run could see the runs it serves later.
   */
  runsPerHelper?: number
}

/** What one run cost. */
export interface CodeRunUsage {
  busyMs: number
  wallMs: number
  /** From the start of the run until the program began: isolate creation and bootstrap. */
  startupMs: number
  /** Binding calls the program made; those still queued when a stop ended the run never reached the host. */
  bindingCalls: number
  /** Wall time during which at least one binding call was waiting on the host. */
  bindingWaitMs: number
  /** The V8 heap's committed size at the end, plus the most ArrayBuffer memory held at once. */
  heapPeakBytes: number
  /** Bytes of the result counted against maxOutputBytes. */
  outputBytes: number
}

/** One event of a durable run, in the order it happened; `t` is the virtual clock, ms since the start. */
export type DurableEvent =
  | { t: number; type: 'call'; id: number; global: string; name: string; argsHash: string }
  | { t: number; type: 'answer'; id: number; value: unknown }
  | { t: number; type: 'rejection'; id: number; message: string }
  | { t: number; type: 'suspended'; id: number; args: unknown; payload: unknown }
  | { t: number; type: 'timer'; id: number }

/** Everything a durable run was given: versioned JSON, signed when a secret is given. */
export interface DurableJournal {
  format: 'dsh-durable-journal'
  version: 1
  /** The runtime version that recorded it; another version refuses it. */
  runtime: string
  /** `'monty'` for a Python run's (PythonCodeRuntime, engine 'monty'); absent for the V8 runtime's. */
  engine?: 'monty'
  programHash: string
  bindingsHash: string
  /** Hash of `options.scope`, or null. */
  scopeHash: string | null
  /** 128 bits, hex: Math.random and Web Crypto's random values draw from it. */
  seed: string
  /** 128 bits, hex, the same in every attempt of one logical run. */
  runId: string
  /** Whether the run completed (a completed journal cannot be resumed). */
  completed: boolean
  /** Epoch ms of the first attempt's start: the virtual clock's zero. */
  startTime: number
  /** Busy time of the attempt that wrote it, which replayed every earlier one. */
  spentMs: number
  events: DurableEvent[]
  /** `hmac-sha256:<hex>` over the rest, canonical JSON; present when `options.secret` was given. */
  signature?: string
}

export interface DurableOptions {
  /** Signs the journal with HMAC-SHA-256 (at least 32 bytes, a string as UTF-8); a journal given back must carry the same signature. */
  secret?: string | Uint8Array
  /** Any JSON (tenant, user, policy): the journal is bound to it. */
  scope?: unknown
  /** 32 hex digits; by default a fresh random seed per run. */
  seed?: string
  /** Events a journal may hold. Default 10000. */
  maxEvents?: number
  /** Bytes of a journal's events, as canonical JSON. Default 16777216. */
  maxBytes?: number
}

/** A binding call waiting for the caller's resolution. */
export interface PendingCall {
  id: number
  global: string
  name: string
  args: unknown
  payload: unknown
}

/** What a durable attempt cost: the run's usage, and the wall time it spent replaying its journal. */
export interface DurableUsage extends CodeRunUsage {
  replayMs: number
}

export type DurableOutcome =
  | { status: 'completed'; result: CodeRunResult; journal: DurableJournal; usage: DurableUsage }
  | { status: 'suspended'; journal: DurableJournal; pending: PendingCall[]; logs: string[]; usage: DurableUsage }

/**
 * Returned by a binding in a durable run: the call waits, and the run suspends once nothing else can
 * happen. Typed as a JSON value so that a binding may return it; the program never sees it.
 */
export declare function suspend(payload?: CodeJsonValue): CodeJsonValue
/**
 * Inside a binding that `resume` calls again, and whatever that call awaits: the call's id, its
 * payload and the caller's resolution. `undefined` in every other binding invocation, including
 * those of any run the resumed binding starts.
 */
export declare function resumption(): { id: number; runId: string; payload: CodeJsonValue; resolution: CodeJsonValue } | undefined

/** `ctx.codeRuntime`, backed by one V8 isolate per run. */
export declare class V8CodeRuntime extends CodeRuntime {
  static Config: Schema<Config>
  readonly language: 'typescript'
  /** As the config's `isolation` says. */
  readonly isolation: 'v8-isolate' | 'process'
  constructor(ctx: Context, config?: Config)
  run(request: CodeRunRequest): Promise<CodeRunResult>
  /** Outside the seam: the same run, with what it cost. */
  runWithUsage(request: CodeRunRequest): Promise<{ result: CodeRunResult; usage: CodeRunUsage }>
  /** Outside the seam: a run that records its journal and suspends where a binding returns `suspend()`. */
  runDurable(request: CodeRunRequest, options?: DurableOptions): Promise<DurableOutcome>
  /** Replays `journal` in a fresh isolate, then calls the resolved pending bindings again. */
  resume(request: CodeRunRequest, journal: DurableJournal, resolutions: Record<number, unknown>, options?: DurableOptions): Promise<DurableOutcome>
  /** Re-runs a recorded run from its journal alone; calls no binding. */
  replay(request: CodeRunRequest, journal: DurableJournal, options?: DurableOptions): Promise<DurableOutcome>
}

/** What a durable attempt of a Python run cost: its wall time, and the part spent replaying its journal. */
export interface PythonDurableUsage {
  wallMs: number
  replayMs: number
}

export type PythonDurableOutcome =
  | { status: 'completed'; result: CodeRunResult; journal: DurableJournal; usage: PythonDurableUsage }
  | { status: 'suspended'; journal: DurableJournal; pending: PendingCall[]; logs: string[]; usage: PythonDurableUsage }

/** `PythonCodeRuntime`'s configuration (docs/python.md). */
export interface PythonConfig {
  /** The interpreter: `'cpython'`, the real one, or `'monty'`, pydantic's Rust interpreter of a Python
   * subset (docs/python.md lists what it lacks); either in a kernel-confined process per run. Default `'cpython'`. */
  engine?: 'cpython' | 'monty'
  /** CPU budget of one run, in seconds (a positive whole number; RLIMIT_CPU). Default 60. */
  cpuSeconds?: number
  /** Wall-clock ceiling of one run, in milliseconds. At most 2147483647. Default 600000. */
  maxWallMs?: number
  /** Address space of one run's process, in MiB (RLIMIT_AS; at least 64). Default 512. */
  addressSpaceMb?: number
  /** Bytes of printed text kept in `logs` (at least 64); past it, a marker line ends the logs. Default 65536. */
  maxLogBytes?: number
  /** Bytes of the return value's compact JSON; past it, the run fails as `output-limit`. Default 32768. */
  maxValueBytes?: number
  /** After an abort or a budget kills a run's process, how long the run waits for it to be gone. Default 3000. */
  graceMs?: number
  /** The interpreter of engine 'cpython': a path, or a name looked up on PATH when the runtime is made. Default `'python3'`. */
  pythonBin?: string
  /** Interpreters started ahead of demand (a whole number); each serves exactly one run. Default 2. */
  prepared?: number
  /** Absolute paths programs may read besides the interpreter's own files. Default none. */
  readablePaths?: string[]
  /** Run where the kernel sandbox is missing, with only the process and its budgets as containment. Default false. */
  containmentOnly?: boolean
}

/** Each run's Python program in a CPython process of its own, confined by the kernel. */
export declare class PythonCodeRuntime extends CodeRuntime {
  static Config: Schema<PythonConfig>
  readonly language: 'python'
  readonly isolation: 'process'
  /** The sandbox's layers, each with why it is missing (`null` when the kernel enforces it). */
  readonly sandbox: [name: string, missing: string | null][]
  /** The interpreter the runs use: CPython's executable, or the helper that runs Monty. */
  readonly interpreter: { engine: 'cpython' | 'monty'; executable: string; version: string }
  constructor(ctx: Context, config?: PythonConfig)
  run(request: CodeRunRequest): Promise<CodeRunResult>
  /** Outside the seam, engine 'monty' only: a run that records its journal and suspends where a binding returns `suspend()`. */
  runDurable(request: CodeRunRequest, options?: DurableOptions): Promise<PythonDurableOutcome>
  /** Replays `journal` in a fresh process, then calls the resolved pending bindings again. */
  resume(request: CodeRunRequest, journal: DurableJournal, resolutions: Record<number, unknown>, options?: DurableOptions): Promise<PythonDurableOutcome>
  /** Re-runs a recorded run from its journal alone; calls no binding. */
  replay(request: CodeRunRequest, journal: DurableJournal, options?: DurableOptions): Promise<PythonDurableOutcome>
}

/** The line that ends a Python run's logs once they reach `maxLogBytes`. */
export declare function logTruncationMarker(maxLogBytes: number): string

export default V8CodeRuntime
