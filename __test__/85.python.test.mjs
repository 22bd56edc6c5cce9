// PythonCodeRuntime on CPython: what CPython alone offers of the contract the model is told (exact
// logs, tracebacks and failures), the kernel sandbox from inside the program, hostile programs and
// the zygote. The contract both engines share, budgets too, is 86.python-engines.test.mjs.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { lstatSync, readFileSync, readdirSync, symlinkSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Context } from '@deepseek-ai/cordis'
import Include from '@deepseek-ai/cordis-plugin-include'
import Loader from '@deepseek-ai/cordis-plugin-loader'
import PythonCodeRuntime, { logTruncationMarker } from 'dsh-code-runtime-v8/python'
import { sleep, tools, until } from './helpers.mjs'
import { alive, startHost } from './fixtures/helper-processes.mjs'
import { PROGRAMS, TOOL_DATA } from './fixtures/python-programs.mjs'

async function setup(config) {
  const ctx = new Context()
  const fiber = await ctx.plugin(PythonCodeRuntime, config)
  return { runtime: ctx.get('codeRuntime'), dispose: () => fiber.dispose() }
}

/** A program's prelude: `attempt(name, action)` records in `out` whether the kernel let it act. */
const ATTEMPT = `out = {}
def attempt(name, action):
    try:
        action()
        out[name] = "allowed"
    except OSError as error:
        out[name] = type(error).__name__`

const { runtime, dispose } = await setup({ prepared: 2 })
const run = (program, functions = {}) => runtime.run({ program, bindings: tools(functions) })
test.after(() => dispose())

test('the runtime is a Python process runtime, confined by every layer of the sandbox', () => {
  assert.equal(runtime.language, 'python')
  assert.equal(runtime.isolation, 'process')
  assert.deepEqual(runtime.sandbox.map(([name]) => name), ['descriptors', 'parent-death', 'memory', 'capabilities', 'no-new-privs', 'landlock', 'seccomp'])
  assert.deepEqual(runtime.sandbox.filter(([, missing]) => missing !== null), [])
})

test('a value, or no value key when the program returns None', async () => {
  assert.deepEqual(await run('return 1'), { logs: [], value: 1 })
  assert.deepEqual(await run('x = {"a": [1, 2.5, None, True, "é"], "t": (1, 2)}\nreturn x'),
    { logs: [], value: { a: [1, 2.5, null, true, 'é'], t: [1, 2] } })
  assert.deepEqual(await run('print("only")'), { logs: ['only'] })
  assert.deepEqual(await run('return None'), { logs: [] })
})

test('logs: one entry per line, a flushed unterminated line joined with the next, stderr too', async () => {
  const result = await run('import sys\nprint("a", end="", flush=True)\nprint("b")\nprint("x\\ny")\nprint("e", file=sys.stderr)\nprint("tail", end="")')
  assert.deepEqual(result, { logs: ['ab', 'x', 'y', 'e', 'tail'] })
})

test('bindings: one argument each way, exact integers past 2^53, subscript access for any name', async () => {
  const seen = []
  const result = await runtime.run({
    program: 'a = await tools.echo({"n": 2**60, "s": "x"})\nb = await tools["exotic-name"]({"k": [1]})\nc = await tools.big({})\nreturn [a, b, c == 2**70, type(c).__name__]',
    bindings: tools({ echo: async (args) => { seen.push(args); return args }, 'exotic-name': (args) => ({ got: args }), big: () => 2 ** 70 }),
  })
  assert.deepEqual(seen, [{ n: 2 ** 60, s: 'x' }])
  assert.deepEqual(result, { logs: [], value: [{ n: 2 ** 60, s: 'x' }, { got: { k: [1] } }, true, 'int'] })
})

test('a failed call raises ToolCallError with toolName and the host message', async () => {
  const result = await run(
    'try:\n    await tools.charge({"amount": 5})\nexcept ToolCallError as e:\n    return [type(e).__name__, e.toolName, str(e), isinstance(e, Exception)]',
    { charge: async () => { throw new Error('card declined') } })
  assert.deepEqual(result, { logs: [], value: ['ToolCallError', 'charge', 'card declined', true] })
  const uncaught = await run('await tools.charge({})', { charge: () => { throw new Error('no funds') } })
  assert.equal(uncaught.error.kind, 'exception')
  assert.equal(uncaught.error.message, 'Traceback (most recent call last):\n  File "<program>", line 1, in <module>\n    await tools.charge({})\nToolCallError: no funds')
})

test('calls overlap under asyncio.gather and come back in order', async () => {
  const started = []
  let release
  const gate = new Promise((resolve) => { release = resolve })
  const settled = run('import asyncio\nreturn await asyncio.gather(*[tools.slow({"i": i}) for i in range(5)])',
    { slow: async ({ i }) => { started.push(i); if (started.length === 5) release(); await gate; return i * 10 } })
  assert.deepEqual(await settled, { logs: [], value: [0, 10, 20, 30, 40] })
  assert.deepEqual(started, [0, 1, 2, 3, 4])
})

test('deep values cross both ways with no recursion limit', async () => {
  const deep = await run('v = []\nfor i in range(3000):\n    v = [v]\nback = await tools.echo(v)\nd = 0\nwhile back:\n    back = back[0]\n    d += 1\nreturn d', { echo: (value) => value })
  assert.deepEqual(deep, { logs: [], value: 3000 })
})

test('an exception reads as CPython prints it, with only the program\'s frames', async () => {
  const result = await run('import json\ndef parse(t):\n    return json.loads(t)\nparse("{bad")')
  assert.equal(result.error.kind, 'exception')
  assert.match(result.error.message, /^Traceback \(most recent call last\):\n {2}File "<program>", line 4, in <module>\n {4}parse\("\{bad"\)\n {2}File "<program>", line 3, in parse\n {4}return json\.loads\(t\)\n/)
  assert.match(result.error.message, /\njson\.decoder\.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 \(char 1\)$/)
  assert.doesNotMatch(result.error.message, /\.py"/)
  const syntax = await run('x = (1,\nreturn x')
  assert.equal(syntax.error.kind, 'exception')
  assert.match(syntax.error.message, /^ {2}File "<program>", line 1\n {4}x = \(1,\n {8}\^\nSyntaxError: '\(' was never closed$/)
})

test('the sandbox, seen from inside the program', async () => {
  const result = await run(`
import os, socket, subprocess, threading
${ATTEMPT}
attempt("read a host file", lambda: open("/etc/hostname").read())
attempt("list the root", lambda: os.listdir("/"))
attempt("write a file", lambda: open("/tmp/dsh-python-probe", "w"))
attempt("open a socket", lambda: socket.socket())
attempt("fork", os.fork)
attempt("start a program", lambda: subprocess.run(["/bin/true"]))
attempt("signal its parent", lambda: os.kill(os.getppid(), 0))
host = await tools.hostPid({})
attempt("signal the host", lambda: os.kill(host, 0))
attempt("signal a group", lambda: os.kill(0, 0))
attempt("start a thread", lambda: threading.Thread(target=lambda: None).start())
out["environment"] = sorted(k for k in os.environ if k != "LC_CTYPE")
import json, asyncio, decimal
return out`, { hostPid: () => process.pid })
  assert.deepEqual(result, { logs: [], value: {
    'read a host file': 'PermissionError',
    'list the root': 'PermissionError',
    'write a file': 'PermissionError',
    'open a socket': 'PermissionError',
    fork: 'PermissionError',
    'start a program': 'PermissionError',
    'signal its parent': 'PermissionError',
    'signal the host': 'PermissionError',
    'signal a group': 'PermissionError',
    'start a thread': 'allowed',
    environment: [],
  } })
})

test('hostile programs end as their run alone, and the runtime serves the next', async () => {
  const cases = [
    ['import os\nos._exit(3)', { kind: 'worker-exit', message: 'the Python process exited with code 3' }],
    ['import ctypes\nctypes.string_at(0)', { kind: 'worker-exit', message: 'the Python process was killed by SIGSEGV' }],
    ['import os, signal\nos.kill(os.getpid(), signal.SIGKILL)', { kind: 'exception', match: /\nPermissionError: \[Errno 1\] Operation not permitted$/ }],
    ['import os\nwhile True:\n    os.fork()', { kind: 'exception', match: /PermissionError: \[Errno 1\] Operation not permitted$/ }],
    ['x = bytearray(2**40)', { kind: 'exception', match: /\nMemoryError$/ }],
    ['def f(n):\n    return f(n + 1)\nf(0)', { kind: 'exception', match: /\nRecursionError: maximum recursion depth exceeded$/ }],
    ['import os\nos.write(3, b"not a frame\\n")\nimport time\ntime.sleep(5)', { kind: 'worker-exit', message: 'the Python process sent a frame that is not JSON' }],
    ['import os\nos.write(3, b\'{"type":"call","id":1,"global":"tools","name":"x","args":9007199254740993}\\n\')\nimport time\ntime.sleep(5)',
      { kind: 'worker-exit', message: 'the Python process sent a frame with an integer a JavaScript number cannot hold exactly (9007199254740993)' }],
  ]
  for (const [program, expected] of cases) {
    const result = await run(program)
    assert.equal(result.error?.kind, expected.kind, program)
    if (expected.message) assert.equal(result.error.message, expected.message, program)
    else assert.match(result.error.message, expected.match, program)
  }
  const flood = await run('print("x" * 10_000_000)\nfor i in range(100_000):\n    print(i)\nreturn 1')
  assert.deepEqual(flood, { logs: [logTruncationMarker(65_536)], value: 1 })
  const lingering = await run('import threading, time\nthreading.Thread(target=lambda: time.sleep(60)).start()\nreturn "done"')
  assert.deepEqual(lingering, { logs: [], value: 'done' })
  assert.deepEqual(await run('return 2'), { logs: [], value: 2 })
})

test('caller misuse and bad config are refused with precise messages', async () => {
  await assert.rejects(runtime.run({ program: 42, bindings: [] }), { message: 'dsh-code-runtime-v8: program must be a string, got number' })
  await assert.rejects(runtime.run({ program: '', bindings: [{ global: 'lambda', functions: {} }] }), { message: 'dsh-code-runtime-v8: binding global "lambda" is not a usable identifier' })
  assert.throws(() => new PythonCodeRuntime(new Context(), { maxLogBytes: 10 }), { message: 'dsh-code-runtime-v8: config.maxLogBytes must be at least 64 (the truncation marker must fit), got 10' })
  assert.throws(() => new PythonCodeRuntime(new Context(), { cpuSeconds: 1.5 }), { message: 'dsh-code-runtime-v8: config.cpuSeconds must be a positive whole number, got 1.5' })
  assert.throws(() => new PythonCodeRuntime(new Context(), { pythonBin: 'no-such-python-here' }), { message: 'dsh-code-runtime-v8: config.pythonBin "no-such-python-here" is not on PATH' })
  const gone = await setup({ prepared: 0 })
  await gone.dispose()
  await assert.rejects(gone.runtime.run({ program: 'return 1', bindings: [] }), { message: 'dsh-code-runtime-v8: run() after disposal' })
})

test('nothing a run starts outlives it: its process, its threads, its zygote with the runtime', async () => {
  const own = await setup({ prepared: 0 })
  const pids = []
  const report = { report: ({ pid, zygote }) => { pids.push(pid, zygote); return null } }
  const program = 'import os, threading, time\nthreading.Thread(target=lambda: time.sleep(600)).start()\nawait tools.report({"pid": os.getpid(), "zygote": os.getppid()})\nreturn 1'
  assert.deepEqual(await own.runtime.run({ program, bindings: tools(report) }), { logs: [], value: 1 })
  const [pid, zygote] = pids
  assert.notEqual(pid, zygote)
  // The zygote holds no capability, even for a host run as root, and is confined.
  const status = Object.fromEntries(readFileSync(`/proc/${zygote}/status`, 'utf8').trim().split('\n')
    .map((line) => line.split(':\t')).map(([key, value]) => [key, value.trim()]))
  assert.deepEqual([status.CapEff, status.CapPrm, status.NoNewPrivs, status.Seccomp], ['0000000000000000', '0000000000000000', '1', '2'])
  assert.equal(readFileSync(`/proc/${zygote}/environ`, 'utf8'), '')
  assert.ok(await until(() => !alive(pid), 1000), 'the run\'s process is alive a second after its run settled')
  assert.ok(alive(zygote))
  const aborted = new AbortController()
  const settled = own.runtime.run({ program: 'import os\nawait tools.report({"pid": os.getpid(), "zygote": 0})\nimport time\ntime.sleep(600)', bindings: tools(report), signal: aborted.signal })
  assert.ok(await until(() => pids.length === 4, 10_000))
  aborted.abort('stop')
  assert.deepEqual(await settled, { logs: [], error: { kind: 'abort', message: 'stop' } })
  assert.equal(alive(pids[2]), false)
  await own.dispose()
  assert.ok(await until(() => !alive(zygote), 1000), 'the zygote is alive a second after disposal')
})

test('a run given a process that died while prepared, before the host saw it end, is served by another', async () => {
  const own = await setup({ prepared: 1 })
  let zygote
  const report = { report: ({ parent }) => { zygote = parent; return null } }
  assert.deepEqual(await own.runtime.run({ program: 'import os\nawait tools.report({"parent": os.getppid()})\nreturn 1', bindings: tools(report) }),
    { logs: [], value: 1 })
  // The one forked to replace it, once warm.
  await sleep(500)
  const prepared = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry) && alive(Number(entry)) &&
    readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.split(' ')[1] === String(zygote)).map(Number)
  assert.equal(prepared.length, 1)
  // No turn of the event loop between the kill and the run: the host has not seen it end.
  process.kill(prepared[0], 'SIGKILL')
  assert.deepEqual(await own.runtime.run({ program: 'print("ran")\nreturn 2', bindings: [] }), { logs: ['ran'], value: 2 })
  assert.equal(alive(prepared[0]), false)
  await own.dispose()
})

test('a host that dies takes its zygote and every run process with it', async () => {
  const { host, printed: pids } = await startHost('./python-host.mjs')
  assert.equal(pids.length, 4, 'three run processes and their zygote')
  assert.ok(pids.every(alive))
  host.kill('SIGKILL')
  assert.ok(await until(() => pids.every((pid) => !alive(pid)), 1000), `alive a second after the host: ${pids.filter(alive)}`)
})

test('the Python runtime mounts by name from a composition YAML through the real loader', async () => {
  // The loader imports bare names from its own install, as a bundle would: link this package there.
  const link = new URL('../node_modules/dsh-code-runtime-v8', import.meta.url)
  try { lstatSync(link) } catch { symlinkSync('..', link) }
  const root = new Context()
  await root.plugin(Loader, { baseUrl: import.meta.url })
  await root.plugin(Include, { path: new URL('./fixtures/cordis-python.yml', import.meta.url).href })
  await root.loader.await()
  const mounted = root.get('codeRuntime')
  assert.ok(mounted instanceof PythonCodeRuntime)
  assert.equal(mounted.language, 'python')
  assert.deepEqual(await mounted.run({ program: 'n: int = 40\nreturn n + 2', bindings: [] }), { logs: [], value: 42 })
  await root.registry.get(Include)?.dispose?.()
})

test('a binding flood waits in the program, bounded on the host, and completes as the reference does', async () => {
  let inFlight = 0
  let most = 0
  const functions = { slow: async ({ i }) => { most = Math.max(most, ++inFlight); await sleep(1); inFlight--; return i } }
  const result = await run('import asyncio\nr = await asyncio.gather(*[tools.slow({"i": i}) for i in range(20_000)])\nreturn [len(r), r[0], r[-1], sum(r)]', functions)
  assert.deepEqual(result, { logs: [], value: [20_000, 0, 19_999, 199_990_000] })
  assert.ok(most <= 1024 + 512, `${most} calls were in flight at once`)
})

test('a forged value past the byte budget is output-limit, whatever the process claims', async () => {
  const result = await run('import socket, time\nchannel = socket.socket(fileno=3)\nchannel.setblocking(True)\nchannel.sendall(b\'{"type":"done","value":"\' + b"x" * 300_000 + b\'"}\\n\')\ntime.sleep(5)')
  assert.deepEqual(result, { logs: [], error: { kind: 'output-limit', message: 'the return value is larger than maxValueBytes (32768 bytes)' } })
})

test('programs of the kind a model writes give what CPython gives them as scripts', async () => {
  const reference = fileURLToPath(new URL('./fixtures/python-reference.py', import.meta.url))
  const table = (name) => async (args) => {
    const answers = TOOL_DATA[name]
    if (Array.isArray(answers)) return answers
    const key = args.id ?? args.city
    if (!Object.hasOwn(answers, key)) throw new Error(`no ${name} for ${key}`)
    return answers[key]
  }
  const functions = Object.fromEntries(Object.keys(TOOL_DATA).map((name) => [name, table(name)]))
  for (const [name, program] of Object.entries(PROGRAMS)) {
    const ours = await run(program, functions)
    const cpython = spawnSync(runtime.interpreter.executable, [reference], { input: JSON.stringify({ program, data: TOOL_DATA }), encoding: 'utf8', env: {} })
    assert.equal(cpython.status, 0, `${name}: ${cpython.stderr}`)
    const lines = cpython.stdout.split('\n').slice(0, -1)
    const value = JSON.parse(lines.pop().slice(1))
    assert.deepEqual(ours, value === null ? { logs: lines } : { logs: lines, value }, name)
  }
})

test('a program reaches no other process and changes no file: no limits, scheduling, descriptor owners, metadata, shared memory or watches', async () => {
  const result = await run(`
import ctypes, fcntl, os, resource, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
host = await tools.hostPid({})
${ATTEMPT}
attempt("read the host's limits", lambda: resource.prlimit(host, resource.RLIMIT_NOFILE))
attempt("lower the host's CPU limit", lambda: resource.prlimit(host, resource.RLIMIT_CPU, (1, 1)))
attempt("its own limits", lambda: resource.prlimit(0, resource.RLIMIT_NOFILE))
attempt("renice the host", lambda: os.setpriority(os.PRIO_PROCESS, host, 19))
attempt("renice its group", lambda: os.setpriority(os.PRIO_PGRP, 0, 19))
attempt("renice itself", lambda: os.setpriority(os.PRIO_PROCESS, 0, 19))
attempt("pin the host", lambda: os.sched_setaffinity(host, {0}))
attempt("own the channel", lambda: fcntl.fcntl(3, fcntl.F_SETOWN, os.getppid()))
attempt("signal by the channel", lambda: fcntl.fcntl(3, 10, signal.SIGKILL))
interpreter = os.path.realpath(sys.executable)
attempt("chmod a file it reads", lambda: os.chmod(interpreter, 0o4777))
attempt("fchmod a file it reads", lambda: os.fchmod(os.open(interpreter, os.O_RDONLY), 0o4777))
attempt("touch a file it reads", lambda: os.utime(interpreter, (0, 0)))
attempt("tag a file it reads", lambda: os.setxattr(interpreter, "user.dsh", b"x"))
attempt("a file in memory", lambda: os.memfd_create("dsh"))
def raw(name, number, *args):
    out[name] = "allowed" if libc.syscall(number, *args) >= 0 else os.strerror(ctypes.get_errno())
raw("fchmodat2 a file it reads", 452, -100, interpreter.encode(), 0o4777, 0)
raw("System V shared memory", 29, 0, 4096, 0o1000 | 0o600)
raw("a watch on /", 254, libc.inotify_init(), b"/", 0x100)
out["keep living past its parent"] = "allowed" if libc.prctl(1, 0, 0, 0, 0) == 0 else os.strerror(ctypes.get_errno())
out["read the kernel log"] = "allowed" if libc.klogctl(3, ctypes.create_string_buffer(64), 64) >= 0 else os.strerror(ctypes.get_errno())
return out`, { hostPid: () => process.pid })
  assert.deepEqual(result, { logs: [], value: {
    "read the host's limits": 'PermissionError',
    "lower the host's CPU limit": 'PermissionError',
    'its own limits': 'allowed',
    'renice the host': 'PermissionError',
    'renice its group': 'PermissionError',
    'renice itself': 'allowed',
    'pin the host': 'PermissionError',
    'own the channel': 'PermissionError',
    'signal by the channel': 'PermissionError',
    'chmod a file it reads': 'PermissionError',
    'fchmod a file it reads': 'PermissionError',
    'touch a file it reads': 'PermissionError',
    'tag a file it reads': 'PermissionError',
    'a file in memory': 'PermissionError',
    'fchmodat2 a file it reads': 'Operation not permitted',
    'System V shared memory': 'Operation not permitted',
    'a watch on /': 'Operation not permitted',
    'keep living past its parent': 'Operation not permitted',
    'read the kernel log': 'Operation not permitted',
  } })
})

test('forged frames: numbers JavaScript would round, bytes that are not ASCII and None as null end the run or read as the process meant', async () => {
  const forge = (frame, more = '') => `import socket, time\nchannel = socket.socket(fileno=3)\nchannel.setblocking(True)\nchannel.sendall(${frame})\n${more}time.sleep(5)`
  assert.deepEqual(await run(forge(`b'{"type":"done","value":[9007199254740993.0]}\\n'`)),
    { logs: [], error: { kind: 'worker-exit', message: 'the Python process sent a frame with a number a JavaScript number cannot hold exactly (9007199254740993.0)' } })
  assert.deepEqual(await run(forge(`b'{"type":"done","value":[1.00000000000000000001]}\\n'`)),
    { logs: [], error: { kind: 'worker-exit', message: 'the Python process sent a frame with a number a JavaScript number cannot hold exactly (1.00000000000000000001)' } })
  assert.deepEqual(await run(forge(`'{"type":"log","text":"é"}\\n'.encode()`)),
    { logs: [], error: { kind: 'worker-exit', message: 'the Python process sent a frame that is not ASCII' } })
  assert.deepEqual(await run(forge(`b'{"type":"done","value":null}\\n'`)), { logs: [] })
  const small = await setup({ prepared: 0, maxValueBytes: 1000 })
  try {
    const result = await small.runtime.run({ program: forge(`b'{"type":"done","value":"' + b'x' * 1100 + b'"}\\n'`), bindings: [] })
    assert.deepEqual(result, { logs: [], error: { kind: 'output-limit', message: 'the return value is larger than maxValueBytes (1000 bytes)' } })
  } finally {
    await small.dispose()
  }
})

test('a process that never reads its answers is not read either: the host\'s memory stays bounded', async () => {
  const flooding = await setup({ prepared: 0, maxWallMs: 4000 })
  try {
    const before = process.memoryUsage().rss
    let peak = before
    const sampler = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss) }, 20)
    const result = await flooding.runtime.run({
      program: 'import os, time\nbig = "x" * (1 << 20)\nframe = \'{"type":"call","id":%d,"global":"tools","name":"echo","args":"\' + big + \'"}\\n\'\nos.set_blocking(3, True)\nfor i in range(1500):\n    os.write(3, (frame % (i + 1)).encode())\ntime.sleep(30)',
      bindings: tools({ echo: (value) => value }),
    })
    clearInterval(sampler)
    assert.deepEqual(result, { logs: [], error: { kind: 'timeout', message: 'wall-clock ceiling reached (4000ms)' } })
    // Unbounded, the answers queued for it grew the host by 1.5 GiB.
    assert.ok(peak - before < 512 * 2 ** 20, `the host grew by ${((peak - before) / 2 ** 20).toFixed(0)} MiB`)
  } finally {
    await flooding.dispose()
  }
})

test('a value whose own code raises while it is read is invalid-output; a thread\'s exception names no host file', async () => {
  const raising = await run('class Odd(list):\n    def __len__(self):\n        raise RuntimeError("no length")\nreturn Odd([1])')
  assert.deepEqual(raising, { logs: [], error: { kind: 'invalid-output', message: 'the return value is not lossless JSON: reading it raised RuntimeError: no length' } })
  const threaded = await run('import threading\ndef work():\n    raise ValueError("in a thread")\nt = threading.Thread(target=work, name="worker")\nt.start()\nt.join()\nreturn 1')
  assert.deepEqual(threaded, { logs: ['Exception in thread worker:', 'Traceback (most recent call last):', '  File "<program>", line 3, in work', '    raise ValueError("in a thread")', 'ValueError: in a thread'], value: 1 })
  // The code that settles a run keeps the built-ins it started with.
  const replaced = await run('import builtins\nbuiltins.str = lambda *args: "x"\nbuiltins.int = lambda *args: 0\nreturn {"a": [1, 2.5, "s"]}')
  assert.deepEqual(replaced, { logs: [], value: { a: [1, 2.5, 's'] } })
})

test('a call awaited alone is answered at once; with a task or a timer pending, the event loop runs on while it waits', async () => {
  const seen = []
  const functions = {
    slow: async () => { seen.push('slow asked'); await sleep(300); seen.push('slow answered'); return 'slow' },
    note: ({ i }) => { seen.push(`note ${i}`); return i },
  }
  const program = `import asyncio
async def ticker():
    for i in range(3):
        await tools.note({"i": i})
        await asyncio.sleep(0.02)
task = asyncio.create_task(ticker())
await asyncio.sleep(0)
value = await tools.slow({})
await task
first = await tools.note({"i": 9})
try:
    await asyncio.wait_for(tools.slow({}), 0.05)
except asyncio.TimeoutError:
    timed_out = True
return [value, first, timed_out]`
  assert.deepEqual(await run(program, functions), { logs: [], value: ['slow', 9, true] })
  assert.deepEqual(seen.slice(0, 6), ['note 0', 'slow asked', 'note 1', 'note 2', 'slow answered', 'note 9'])
})

test('a line made to be slow to read is read in one pass, and a thread\'s work is not held up by a call', async () => {
  const started = performance.now()
  const sibling = run('import time\ntime.sleep(0.2)\nreturn 2')
  const slow = await run('import os\nline = b\'{"type":"log","text":"\' + b\'\\\\"\' * 400_000 + b"\\n"\nview = memoryview(line)\nos.set_blocking(3, True)\nwhile view:\n    view = view[os.write(3, view):]\nimport time\ntime.sleep(5)')
  assert.equal(slow.error.kind, 'worker-exit')
  assert.deepEqual(await sibling, { logs: [], value: 2 })
  // Quadratic, the 800 KB line held the host's event loop for minutes.
  assert.ok(performance.now() - started < 4000, `${performance.now() - started} ms`)
  let opened
  const gate = new Promise((resolve) => { opened = resolve })
  const threaded = await run(`import asyncio, time
async def opener():
    await asyncio.to_thread(time.sleep, 0.1)
    return await tools.open({})
task = asyncio.ensure_future(opener())
await asyncio.sleep(0)
return [await tools.gate({}), await task]`, { gate: async () => { await gate; return 'through' }, open: () => { opened(); return 'opened' } })
  assert.deepEqual(threaded, { logs: [], value: ['through', 'opened'] })
})

test('a long frame is checked in turns: the host serves other runs meanwhile, and the frames after it come in order', async () => {
  // 20 MiB of long floats take the host seconds to check; in pieces, its timers still run.
  let longest = 0
  let last = performance.now()
  const ticker = setInterval(() => { longest = Math.max(longest, performance.now() - last); last = performance.now() }, 5)
  const floats = await run('import socket, time\nchannel = socket.socket(fileno=3)\nchannel.setblocking(True)\nvalues = ",".join(["0.30000000000000004"] * 1_000_000)\nchannel.sendall(b\'{"type":"log","text":"before"}\\n{"type":"call","id":1,"global":"tools","name":"count","args":[\' + values.encode() + b\']}\\n\')\ntime.sleep(0.5)\nchannel.sendall(b\'{"type":"log","text":"after"}\\n{"type":"done","value":7}\\n\')\ntime.sleep(5)', { count: (values) => values.length })
  clearInterval(ticker)
  assert.deepEqual(floats, { logs: ['before', 'after'], value: 7 })
  assert.ok(longest < 1500, `the host's timers waited ${longest.toFixed(0)} ms`)
})
