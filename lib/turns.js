// The host's share of each turn of Node's event loop for binding work. Node dispatches every call
// a run has queued in one turn, each followed by its microtasks, so parsing and encoding them there
// held a caller's timers (an abort, a disposal) for hundreds of milliseconds. Binding work takes at
// most TURN_MS of a turn, then waits for the next.

const TURN_MS = 4

/** When binding work's share of the current turn began; `undefined` once the turn has ended. */
let turnStartedAt

/** Whether binding work has used its share of this turn. */
export function turnUsed() {
  if (turnStartedAt === undefined) {
    turnStartedAt = performance.now()
    setImmediate(() => { turnStartedAt = undefined })
  }
  return performance.now() - turnStartedAt > TURN_MS
}

/** Resolves in the next turn of the event loop, after its timers. */
export const nextTurn = () => new Promise(setImmediate)

/** Tasks waiting for a turn, in the order they came; `queue[head]` is the next. */
const queue = []
let head = 0

/** Runs `task` now if this turn has room and no task waits before it, else in a later turn, in order. */
export function inTurn(task) {
  if (head === queue.length && !turnUsed()) {
    task()
    return
  }
  queue.push(task)
  if (queue.length - head === 1) drain()
}

async function drain() {
  while (head < queue.length) {
    while (turnUsed()) await nextTurn()
    const task = queue[head]
    queue[head++] = undefined
    try {
      task()
    } catch (error) {
      // Uncaught, as a throw from the threadsafe function's own callback would be, and the tasks
      // after it still run.
      queueMicrotask(() => { throw error })
    }
  }
  queue.length = 0
  head = 0
}
