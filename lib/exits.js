// How a child process of the host ended, in words: the helpers of `isolation: 'process'`, and the
// Python zygote and its run processes, say it the same way, and hand a run on the same way when its
// process ended before it took the run.
import { constants } from 'node:os'

/** How much of a child's stderr is kept, for the message of its death. */
export const STDERR_KEPT = 4096

/** How many other processes a run may be handed to when the one it was given ended before taking
 * it (it died while prepared, and the host had not seen it yet): such a process ran none of it. */
export const HANDOVERS = 2

/** Signal names by number. */
const SIGNAL_NAMES = Object.fromEntries(Object.entries(constants.signals).map(([name, number]) => [number, name]))

/** `what` ended: killed by a signal, exited with a code, or just ended when its status is unknown
 * (`exit` undefined). */
export function exitCause(exit, what) {
  if (exit === undefined) return `${what} ended`
  return exit.signal !== null && exit.signal !== undefined
    ? `${what} was killed by ${SIGNAL_NAMES[exit.signal] ?? `signal ${exit.signal}`}`
    : `${what} exited with code ${exit.code}`
}

/** The last line the helper binary wrote to `stderr`, without its name, if any. */
export const lastSaid = (stderr) => stderr.trim().split('\n').at(-1)?.replace(/^dsh-code-runtime-v8-helper: /, '')

/** Calls `then` once `reaped()` says the child's status is known (the reaper thread reports it a
 * moment after the pipes close), or after 100 tries a millisecond apart. */
export function whenReaped(reaped, then, tries = 0) {
  if (reaped() || tries === 100) then()
  else setTimeout(() => whenReaped(reaped, then, tries + 1), 1)
}
