# The Python side of PythonCodeRuntime (lib/python/). Passed to `python -I -c`, started confined
# by the helper (src/helper/interpreter.rs), whose last two arguments to it are the seccomp filter
# each run's process installs (hex) and the sandbox layers (JSON).
#
# This process is the zygote: it imports what runs need, says it is ready, then forks one process
# per run when the host asks, and kills and reaps them. It never runs a program. A forked process
# installs the filter (no new programs or processes, no signals), then runs the ONE program the
# host sends it, as the body of an async function, and exits.
#
# Wire, JSON lines. Zygote: the host writes `fork` and `kill <pid>` lines on fd 0, a Unix socket,
# over which each forked process's socket is sent back; the zygote writes `ready`, `forked` and
# `exit` frames on fd 1. A run's process, on its socket: `run`, then a `reply` per call, in;
# `call`, `log`, `done` out. The host trusts nothing a run's process sends; this side trusts the
# host.
import ast
import asyncio
import builtins
# Bound here, so that a program that replaces them in `builtins` does not reach the code that
# settles its run.
from builtins import (
    AttributeError, BaseException, BlockingIOError, ChildProcessError, Exception, KeyError, OverflowError,
    RecursionError, TypeError, ValueError, __import__, any, bytes, compile, dict, exec, float, getattr, id,
    int, isinstance, len, list, memoryview, min, property, range, repr, set, setattr, sorted, str, super,
    tuple, type, vars)
import ctypes
import gc
import io
import json
import json.decoder
import linecache
import math
import os
import re
import resource
import select
import signal
import socket
import sys
import threading
import traceback
import types
import warnings

FILTER_HEX, LAYERS_JSON = sys.argv[-2], sys.argv[-1]
# Started only to say what confines it (PythonCodeRuntime's check when it is made).
PROBE = sys.argv[1:-2] == ['probe']
# The zygote's: the host's socket and its frame pipe. A run's process replaces both with its own.
CONTROL, CHANNEL_OUT = os.dup(0), os.dup(1)
CHANNEL_IN = CONTROL
PROGRAM = '<program>'
# Below malloc's mmap threshold: os.read allocates the whole size before it reads, and a larger
# buffer would be mapped and unmapped on every read.
READ_SIZE = 1 << 16
# Descriptors a run's process may hold: its socket, the event loop's, and files it reads.
RUN_DESCRIPTORS = 64
SAFE = 2 ** 53


def send(text):
    view = memoryview((text + '\n').encode('ascii'))
    while view:
        try:
            view = view[os.write(CHANNEL_OUT, view):]
        except BlockingIOError:
            # A run's socket reads without blocking, and so writes: wait for the host to read.
            select.select([], [CHANNEL_OUT], [])


def quote(text):
    return json.encoder.encode_basestring_ascii(text)


def install_filter(hex_text):
    """Installs the filter the launcher compiled on this process; why not, when it cannot be."""
    if not hex_text:
        return 'the launcher compiled no seccomp filter for this platform'
    code = bytes.fromhex(hex_text)

    class Program(ctypes.Structure):
        _fields_ = [('len', ctypes.c_ushort), ('filter', ctypes.c_void_p)]

    instructions = ctypes.create_string_buffer(code, len(code))
    program = Program(len(code) // 8, ctypes.cast(instructions, ctypes.c_void_p))
    PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
    if LIBC.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) != 0:
        return 'prctl(PR_SET_SECCOMP): ' + os.strerror(ctypes.get_errno())
    return None


def die_with(parent):
    """Killed when the zygote ends (it ends with the host)."""
    PR_SET_PDEATHSIG = 1
    if LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0 or os.getppid() != parent:
        os._exit(4)


LIBC = ctypes.CDLL(None, use_errno=True)


def detach_standard_streams():
    """fd 0 reads end of file, fds 1 and 2 refuse writes: the channel is only where we put it."""
    read_end, write_end = os.pipe()
    os.close(write_end)
    os.dup2(read_end, 0)
    os.close(read_end)
    read_end, write_end = os.pipe()
    os.close(read_end)
    os.dup2(write_end, 1)
    os.dup2(write_end, 2)
    os.close(write_end)


# ---- lossless JSON, without recursion ---------------------------------------------------------

class NotLossless(Exception):
    pass


class TooLarge(Exception):
    pass


def exact_number(value):
    """JSON text of an int or float a JavaScript number holds exactly, or NotLossless."""
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NotLossless(f'{float.__repr__(value)} is not a finite number')
        if value == 0 and math.copysign(1.0, value) < 0:
            raise NotLossless('-0.0 has no JSON form')
        return float.__repr__(value)
    if -SAFE <= value <= SAFE:
        return int.__repr__(value)
    try:
        exact = int(float(value)) == value
    except OverflowError:
        exact = False
    if not exact:
        raise NotLossless(f'the integer {value if value.bit_length() < 4000 else "of " + str(value.bit_length()) + " bits"} is beyond what a JSON number carries exactly (2**53)')
    return int.__repr__(value)


def encode(value, limit=None):
    """(wire text, UTF-8 bytes of its compact form) of a JSON value; NotLossless for anything
    else, TooLarge past `limit` bytes. Dicts need str keys; tuples are arrays."""
    chunks = []
    size = 0
    # ('value', x) to write, ('text', t) written as is, ('close', (t, id)) ends a container.
    stack = [('value', value)]
    # The containers being written: one that holds itself would be written forever.
    open_ids = set()
    while stack:
        kind, item = stack.pop()
        if kind == 'text':
            text = item
        elif kind == 'close':
            text, closed = item
            open_ids.discard(closed)
        elif isinstance(item, str):
            text = quote(item)
            if not item.isascii():
                # UTF-8 bytes, a lone surrogate escaped (\udXXX), as JavaScript's JSON writes it.
                raw = json.encoder.encode_basestring(item)
                size += len(raw.encode('utf-8', 'surrogatepass')) + 3 * len(LONE_SURROGATES.findall(raw)) - len(text)
        elif item is None:
            text = 'null'
        elif item is True or item is False:
            text = 'true' if item else 'false'
        elif isinstance(item, (int, float)):
            text = exact_number(item)
        elif isinstance(item, (dict, list, tuple)):
            if id(item) in open_ids:
                raise NotLossless('it contains itself')
            open_ids.add(id(item))
            if isinstance(item, dict):
                text = '{'
                stack.append(('close', ('}', id(item))))
                entries = list(item.items())
                for index in range(len(entries) - 1, -1, -1):
                    key, member = entries[index]
                    if not isinstance(key, str):
                        raise NotLossless(f'a dict key is {type(key).__name__}, not str')
                    stack.append(('value', member))
                    stack.append(('text', (',' if index else '') + quote(key) + ':'))
            else:
                text = '['
                stack.append(('close', (']', id(item))))
                for index in range(len(item) - 1, -1, -1):
                    stack.append(('value', item[index]))
                    if index:
                        stack.append(('text', ','))
        else:
            raise NotLossless(f'{type(item).__name__} is not a JSON value')
        chunks.append(text)
        size += len(text)
        if limit is not None and size > limit:
            raise TooLarge()
    return ''.join(chunks), size


LONE_SURROGATES = re.compile('[\ud800-\udfff]')

# For values nested deeper than json.loads recurses.
NUMBER = re.compile(r'-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?')
WHITESPACE = re.compile(r'[ \t\n\r]*')


def decode(text):
    """json.loads, and for values nested past its recursion limit, the same without recursion."""
    try:
        return json.loads(text)
    except RecursionError:
        return decode_deep(text)


def decode_deep(text):
    scan = json.decoder.scanstring
    containers = []
    keys = []
    index = 0
    value = None
    while True:
        index = WHITESPACE.match(text, index).end()
        char = text[index]
        if char == '{' or char == '[':
            index = WHITESPACE.match(text, index + 1).end()
            if char == '{':
                containers.append({})
                if text[index] == '}':
                    index += 1
                    value = containers.pop()
                else:
                    key, index = scan(text, index + 1)
                    index = WHITESPACE.match(text, index).end() + 1
                    keys.append(key)
                    continue
            else:
                containers.append([])
                if text[index] == ']':
                    index += 1
                    value = containers.pop()
                else:
                    keys.append(None)
                    continue
        elif char == '"':
            value, index = scan(text, index + 1)
        elif text.startswith('null', index):
            value, index = None, index + 4
        elif text.startswith('true', index):
            value, index = True, index + 4
        elif text.startswith('false', index):
            value, index = False, index + 5
        else:
            match = NUMBER.match(text, index)
            token = match.group(0)
            value = float(token) if match.group(1) or match.group(2) else int(token)
            index = match.end()
        # A value is complete: put it in its container, and close what it completes.
        while containers:
            container = containers[-1]
            key = keys.pop()
            if key is None:
                container.append(value)
            else:
                container[key] = value
            index = WHITESPACE.match(text, index).end()
            if text[index] == ',':
                index = WHITESPACE.match(text, index + 1).end()
                if isinstance(container, dict):
                    key, index = scan(text, index + 1)
                    index = WHITESPACE.match(text, index).end() + 1
                    keys.append(key)
                else:
                    keys.append(None)
                break
            index += 1
            value = containers.pop()
        else:
            return value


# ---- logs ---------------------------------------------------------------------------------------

class Log(io.TextIOBase):
    """sys.stdout and sys.stderr: one log entry per line; a flushed unterminated line is sent
    `open`, for the host to join with what follows. Stops at the byte budget, as the host does."""

    def __init__(self, budget):
        self.pending = ''
        self.left = budget
        self.stopped = False

    @property
    def encoding(self):
        return 'utf-8'

    def writable(self):
        return True

    def isatty(self):
        return False

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f'write() argument must be str, not {type(text).__name__}')
        if self.stopped:
            return len(text)
        self.pending += text
        if '\n' in self.pending:
            *lines, self.pending = self.pending.split('\n')
            for line in lines:
                self.emit(line, False)
        elif len(self.pending) > self.left:
            self.emit(self.pending, False)
        return len(text)

    def flush(self):
        if self.pending:
            text, self.pending = self.pending, ''
            self.emit(text, True)

    def finish(self):
        if self.pending:
            text, self.pending = self.pending, ''
            self.emit(text, False)

    def emit(self, text, open_line):
        if self.stopped:
            return
        cost = len(text.encode('utf-8', 'surrogatepass'))
        if cost > self.left:
            self.stopped = True
            self.pending = ''
            send('{"type":"log","truncated":true}')
            return
        self.left -= cost
        send('{"type":"log","text":' + quote(text) + (',"open":true}' if open_line else '}'))


# ---- bindings -----------------------------------------------------------------------------------

class Calls:
    """Binding calls in flight, and the replies that settle them."""

    def __init__(self, loop):
        self.loop = loop
        self.next_id = 0
        self.waiting = {}
        self.buffer = b''

    def start(self, global_name, name, args):
        try:
            args_text, _ = encode(args)
        except NotLossless as why:
            raise TypeError(f'{global_name}.{name}: the argument must be lossless JSON: {why}') from None
        self.next_id += 1
        future = self.loop.create_future()
        alone = self.alone()
        if not alone:
            self.waiting[self.next_id] = future
        send('{"type":"call","id":%d,"global":%s,"name":%s,"args":%s}' % (self.next_id, quote(global_name), quote(name), args_text))
        if alone:
            self.settle(future, self.answer_of(self.next_id))
        return future

    def alone(self):
        """Whether only this call's answer can move the program on: no other call in flight, no
        callback ready, no timer, no descriptor watched but the channel and the loop's own wake-up
        pipe, and no thread but this one (a thread's work, `to_thread` too, comes back through the
        loop). Its answer is then read at once, without the event loop's passes (an awaited call one
        after another takes half the time)."""
        loop = self.loop
        try:
            return (not self.waiting and not loop._ready and not loop._scheduled
                    and len(loop._selector.get_map()) <= 2 and threading.active_count() == 1)
        except AttributeError:
            return False

    def answer_of(self, call_id):
        while True:
            while b'\n' not in self.buffer:
                select.select([CHANNEL_IN], [], [])
                try:
                    chunk = os.read(CHANNEL_IN, READ_SIZE)
                except BlockingIOError:
                    continue
                if not chunk:
                    os._exit(0)
                self.buffer += chunk
            line, _, self.buffer = self.buffer.partition(b'\n')
            reply = decode(line.decode('utf-8'))
            if reply['id'] == call_id:
                return reply

    @staticmethod
    def settle(future, reply):
        if reply['ok']:
            future.set_result(reply['value'])
        else:
            future.set_exception(ReplyError(reply['message']))

    def readable(self):
        chunk = os.read(CHANNEL_IN, READ_SIZE)
        if not chunk:
            os._exit(0)
        self.buffer += chunk
        *lines, self.buffer = self.buffer.split(b'\n')
        for line in lines:
            reply = decode(line.decode('utf-8'))
            future = self.waiting.pop(reply['id'], None)
            if future is not None and not future.done():
                self.settle(future, reply)


class ReplyError(Exception):
    pass


def namespace(calls, global_name, names, error_class, member_property):
    def member(name):
        async def call(args, /):
            try:
                return await calls.start(global_name, name, args)
            except ReplyError as failure:
                message = failure.args[0]
            error = error_class(message) if error_class else Exception(message)
            if error_class:
                setattr(error, member_property, name)
            raise error from None
        call.__name__ = call.__qualname__ = name
        return call

    members = {name: member(name) for name in names}

    class Namespace:
        __slots__ = ()

        def __getattr__(self, name):
            try:
                return members[name]
            except KeyError:
                raise AttributeError(f'{global_name!r} has no binding {name!r}') from None

        def __getitem__(self, name):
            try:
                return members[name]
            except (KeyError, TypeError):
                raise KeyError(name) from None

        def __contains__(self, name):
            return name in members

        def __dir__(self):
            return list(members)

        def __repr__(self):
            return f'<bindings {global_name}: {", ".join(members)}>'

    Namespace.__name__ = Namespace.__qualname__ = global_name
    return Namespace()


def error_class_named(name):
    return type(name, (Exception,), {'__module__': '__main__'})


# ---- the run ------------------------------------------------------------------------------------

def program_frames_only(error):
    """The traceback text of `error`, with only the program's own frames."""
    shown = traceback.TracebackException(type(error), error, error.__traceback__, compact=True)
    seen = set()
    pending = [shown]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        current.stack = traceback.StackSummary.from_list(
            [frame for frame in current.stack if frame.filename == PROGRAM])
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                pending.append(linked)
    return ''.join(shown.format()).rstrip('\n')


SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def declared_global_within(body):
    """Names that functions and classes inside the program declare `global`."""
    names = []
    pending = [node for statement in body for node in ast.iter_child_nodes(statement)] + [
        statement for statement in body if isinstance(statement, SCOPES)]
    while pending:
        node = pending.pop()
        if isinstance(node, SCOPES):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Global):
                    names.extend(inner.names)
        else:
            pending.extend(ast.iter_child_nodes(node))
    return sorted(set(names))


class StarImports(ast.NodeTransformer):
    """`from m import *` in the program's own body (a function's, where Python refuses it) becomes a
    call that puts m's public names among the program's globals, as a script's would be."""

    def visit_ImportFrom(self, node):
        if not any(alias.name == '*' for alias in node.names):
            return node
        call = ast.Call(ast.Name(STAR_IMPORT, ast.Load()), [ast.Constant(node.module)], [])
        return ast.copy_location(ast.Expr(call), node)

    def generic_visit(self, node):
        return node if isinstance(node, SCOPES) else super().generic_visit(node)


STAR_IMPORT = '__dsh_import_star__'


def import_star(scope):
    def star(module_name):
        module = __import__(module_name, fromlist=['*'])
        names = getattr(module, '__all__', None)
        if names is None:
            names = [name for name in vars(module) if not name.startswith('_')]
        for name in names:
            scope[name] = getattr(module, name)
    return star


def compile_program(source):
    """The program as the body of an async function named `<module>`. Where a script's habits
    differ from a function's, the script's hold: a name a function inside declares `global` is
    the program's global too (`count = 0` then `def bump(): global count`), and `from m import *`
    works."""
    tree = ast.parse(source, PROGRAM)
    body = [StarImports().visit(statement) for statement in tree.body] or [ast.Pass()]
    shared = declared_global_within(body)
    if shared:
        body.insert(0, ast.Global(names=shared))
    fields = dict(
        name='<module>',
        args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=body, decorator_list=[], returns=None)
    if 'type_params' in ast.AsyncFunctionDef._fields:
        fields['type_params'] = []
    module = ast.Module(body=[ast.AsyncFunctionDef(**fields)], type_ignores=[])
    ast.fix_missing_locations(module)
    return as_script_names(compile(module, PROGRAM, 'exec'))


INSIDE_PROGRAM = '<module>.<locals>.'


def as_script_names(code):
    """The program's functions and classes named as a script's (`Row`, `f.<locals>.g`), not as
    locals of the function the program is the body of (`<module>.<locals>.Row`): reprs and
    pickles read as CPython's for the same script."""
    qualnames = set()
    pending = [code]
    while pending:
        for const in pending.pop().co_consts:
            if isinstance(const, types.CodeType):
                qualnames.add(getattr(const, 'co_qualname', None))
                pending.append(const)
    # Before 3.11 a code object has no qualname: the names are the enclosing code's constants.
    known = None in qualnames

    def renamed(const):
        if isinstance(const, types.CodeType):
            return rename(const)
        if isinstance(const, str) and const.startswith(INSIDE_PROGRAM) and (known or const in qualnames):
            return const[len(INSIDE_PROGRAM):]
        return const

    def rename(current):
        changes = {'co_consts': tuple(renamed(const) for const in current.co_consts)}
        qualname = getattr(current, 'co_qualname', '')
        if qualname.startswith(INSIDE_PROGRAM):
            changes['co_qualname'] = qualname[len(INSIDE_PROGRAM):]
        return current.replace(**changes)

    return rename(code)


def limit_cpu(seconds):
    """The run's CPU budget from now: SIGXCPU at `seconds` more, SIGKILL a second later."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime) + seconds
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    else:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 1))


def settle(frame):
    send(frame)
    os._exit(0)


def report_without_host_paths():
    """What Python prints of an exception a thread raised, of one it could not raise (in a
    finalizer), and of a warning, with the program's frames only and no file of the host named."""
    def thread_raised(args):
        if args.exc_type is not SystemExit:
            sys.stderr.write(f'Exception in thread {args.thread.name if args.thread else "?"}:\n'
                             + program_frames_only(args.exc_value) + '\n')

    def unraisable(hook):
        sys.stderr.write(f'Exception ignored in: {hook.err_msg or repr(hook.object)}\n'
                         + program_frames_only(hook.exc_value) + '\n')

    def format_warning(message, category, filename, lineno, line=None):
        if filename != PROGRAM:
            return f'{os.path.basename(filename)}:{lineno}: {category.__name__}: {message}\n'
        source = linecache.getline(filename, lineno).strip()
        return f'{filename}:{lineno}: {category.__name__}: {message}\n' + (f'  {source}\n' if source else '')

    threading.excepthook = thread_raised
    sys.unraisablehook = unraisable
    warnings.formatwarning = format_warning


def run(loop, request, received):
    log = Log(request['maxLogBytes'])
    sys.stdout = sys.stderr = log
    report_without_host_paths()
    calls = Calls(loop)
    calls.buffer = received
    os.set_blocking(CHANNEL_IN, False)
    loop.add_reader(CHANNEL_IN, calls.readable)
    scope = {'__name__': '__main__', '__builtins__': builtins}
    scope[STAR_IMPORT] = import_star(scope)
    for global_name, names, error_name, member_property in request['namespaces']:
        error_class = error_class_named(error_name) if error_name is not None else None
        if error_class is not None:
            scope[error_name] = error_class
        scope[global_name] = namespace(calls, global_name, names, error_class, member_property)
    source = request['program']
    linecache.cache[PROGRAM] = (len(source), None, source.splitlines(True), PROGRAM)
    limit_cpu(request['cpuSeconds'])
    try:
        exec(compile_program(source), scope)
        main = scope.pop('<module>')
        value = loop.run_until_complete(main())
    except BaseException as error:  # the program's SystemExit too: it ends the run, as any raise
        log.finish()
        settle('{"type":"done","error":{"kind":"exception","message":%s}}' % quote(program_frames_only(error)))
    log.finish()
    if value is None:
        settle('{"type":"done"}')
    try:
        text, _ = encode(value, request['maxValueBytes'])
    except NotLossless as why:
        settle('{"type":"done","error":{"kind":"invalid-output","message":%s}}' % quote(f'the return value is not lossless JSON: {why}'))
    except TooLarge:
        settle('{"type":"done","error":{"kind":"output-limit","message":%s}}' % quote(f'the return value is larger than maxValueBytes ({request["maxValueBytes"]} bytes)'))
    except Exception as error:  # the value's own code raised while it was read (a __len__, a getter)
        settle('{"type":"done","error":{"kind":"invalid-output","message":%s}}' % quote(
            f'the return value is not lossless JSON: reading it raised {type(error).__name__}: {error}'))
    settle('{"type":"done","value":' + text + '}')


def become_run_process(channel, zygote):
    """In a forked process: only its own socket left, confined, its program run; never returns."""
    global CHANNEL_IN, CHANNEL_OUT
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    os.dup2(channel, 3)
    os.closerange(4, 1 << 16)
    CHANNEL_IN = CHANNEL_OUT = 3
    die_with(zygote)
    # Descriptors hold kernel memory no limit of the process counts (a pipe's buffer): few, then.
    resource.setrlimit(resource.RLIMIT_NOFILE, (RUN_DESCRIPTORS, RUN_DESCRIPTORS))
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    if install_filter(FILTER_HEX) is not None:
        os._exit(4)
    warm(loop)
    received = b''
    while b'\n' not in received:
        chunk = os.read(CHANNEL_IN, READ_SIZE)
        if not chunk:
            os._exit(0)
        received += chunk
    # Before anything of the run: a process that ends before saying so ran none of it.
    send('{"type":"taken"}')
    line, _, rest = received.partition(b'\n')
    run(loop, decode(line.decode('utf-8')), rest)


def warm(loop):
    """Runs what a run runs, on nothing, while the process waits for its program: the pages a
    run writes (reference counts, caches) are copied from the zygote now, not during the run."""
    scope = {'__builtins__': builtins}
    exec(compile_program('return [1, "a", {"b": None}]'), scope)
    value = loop.run_until_complete(scope['<module>']())
    decode(encode(value)[0])
    program_frames_only(ValueError('warm'))


class Zygote:
    def __init__(self):
        self.control = socket.socket(fileno=CONTROL)
        self.children = set()
        self.pid = os.getpid()

    def fork(self):
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:
            try:
                ours.close()
                become_run_process(theirs.detach(), self.pid)
            finally:
                os._exit(4)
        theirs.close()
        self.children.add(pid)
        socket.send_fds(self.control, [b'\0'], [ours.fileno()])
        ours.close()
        send('{"type":"forked","pid":%d}' % pid)

    def kill(self, pid):
        # Only an unreaped child: its id cannot have been taken by another process.
        if pid in self.children:
            os.kill(pid, signal.SIGKILL)

    def reap(self):
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            self.children.discard(pid)
            if os.WIFSIGNALED(status):
                send('{"type":"exit","pid":%d,"signal":%d}' % (pid, os.WTERMSIG(status)))
            else:
                send('{"type":"exit","pid":%d,"code":%d}' % (pid, os.waitstatus_to_exitcode(status)))

    def serve(self):
        wake_read, wake_write = os.pipe()
        os.set_blocking(wake_read, False)
        os.set_blocking(wake_write, False)
        signal.set_wakeup_fd(wake_write)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        pending = b''
        while True:
            readable, _, _ = select.select([CONTROL, wake_read], [], [])
            if wake_read in readable:
                while True:
                    try:
                        if not os.read(wake_read, 512):
                            break
                    except BlockingIOError:
                        break
                self.reap()
            if CONTROL in readable:
                chunk = os.read(CONTROL, READ_SIZE)
                if not chunk:
                    os._exit(0)
                *lines, pending = (pending + chunk).split(b'\n')
                for line in lines:
                    if line == b'fork':
                        self.fork()
                    elif line.startswith(b'kill '):
                        self.kill(int(line[5:]))


def filter_installs():
    """Why a forked process could not install the filter, or None: tried once, in a process of its own."""
    pid = os.fork()
    if pid == 0:
        os._exit(0 if install_filter(FILTER_HEX) is None else 1)
    _, status = os.waitpid(pid, 0)
    return None if os.waitstatus_to_exitcode(status) == 0 else 'a forked process could not install the seccomp filter'


def main():
    layers = json.loads(LAYERS_JSON)
    missing = 'the launcher compiled no seccomp filter for this platform' if not FILTER_HEX else filter_installs()
    for layer in layers:
        if layer[0] == 'seccomp' and layer[1] is None and missing is not None:
            layer[1] = missing
    detach_standard_streams()
    send('{"type":"ready","sandbox":' + json.dumps(layers) + '}')
    if PROBE:
        os._exit(0)
    # What the zygote holds now is never collected: a collection would write to every object, and
    # each forked process would copy the pages it wrote.
    gc.freeze()
    Zygote().serve()


main()
