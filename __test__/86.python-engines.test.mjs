// PythonCodeRuntime's contract on both engines: one suite, run on 'cpython' and on 'monty', each case
// with the result CPython gives and, where Monty's differs, Monty's with the reason (the list in
// docs/python.md). Then what holds on Monty alone: its budgets, its memory limit, its processes.
import { describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { Context } from '@deepseek-ai/cordis'
import PythonCodeRuntime, { logTruncationMarker } from 'dsh-code-runtime-v8/python'
import { sleep, tools, until } from './helpers.mjs'
import { alive, helperPids } from './fixtures/helper-processes.mjs'

const ENGINES = ['cpython', 'monty']

async function setup(config) {
  const ctx = new Context()
  const fiber = await ctx.plugin(PythonCodeRuntime, config)
  return { runtime: ctx.get('codeRuntime'), dispose: () => fiber.dispose() }
}

const traceback = (...lines) => ['Traceback (most recent call last):', ...lines].join('\n')

/**
 * Each case: a program, its bindings' functions, the result on CPython, and on Monty where it
 * differs (`monty`, with `why`).
 */
const CASES = {
  'a value': { program: 'return 1', expected: { logs: [], value: 1 } },
  'JSON values, a tuple as an array': {
    program: 'x = {"a": [1, 2.5, None, True, "é"], "t": (1, 2)}\nreturn x',
    expected: { logs: [], value: { a: [1, 2.5, null, true, 'é'], t: [1, 2] } },
  },
  'no value key when the program returns None or nothing': {
    program: 'print("only")\nif False:\n    return 1\n1 + 1',
    expected: { logs: ['only'] },
  },
  'logs: one entry per line, an unterminated line joined with the next': {
    program: 'print("a", end="")\nprint("b")\nprint("x\\ny")\nprint(1, 2, sep="-")\nprint("tail", end="")',
    expected: { logs: ['ab', 'x', 'y', '1-2', 'tail'] },
  },
  'bindings: one argument each way, exact integers past 2^53 both ways': {
    program: 'a = await tools.echo({"n": 2**60, "s": "x"})\nc = await tools.big({})\nreturn [a, c == 2**70, type(c).__name__]',
    functions: { echo: (args) => args, big: () => 2 ** 70 },
    expected: { logs: [], value: [{ n: 2 ** 60, s: 'x' }, true, 'int'] },
  },
  'a binding under a name that is no identifier, by subscript': {
    program: 'return await tools["exotic-name"]({"k": [1]})',
    functions: { 'exotic-name': (args) => ({ got: args }) },
    expected: { logs: [], value: { got: { k: [1] } } },
  },
  'a failed call raises the error class with the host\'s message and the tool\'s name': {
    program: 'try:\n    await tools.charge({"amount": 5})\nexcept ToolCallError as e:\n    return [str(e), e.toolName, isinstance(e, Exception)]',
    functions: { charge: () => { throw new Error('card declined') } },
    expected: { logs: [], value: ['card declined', 'charge', true] },
  },
  'the error class is a class of its own': {
    program: 'try:\n    await tools.charge({})\nexcept ToolCallError as e:\n    return type(e).__name__',
    functions: { charge: () => { throw new Error('card declined') } },
    expected: { logs: [], value: 'ToolCallError' },
    monty: {
      why: 'Monty has no class a host can define: the error class is RuntimeError under the class\'s name',
      expected: { logs: [], value: 'RuntimeError' },
    },
  },
  'a failure the program does not catch': {
    program: 'await tools.charge({})',
    functions: { charge: () => { throw new Error('no funds') } },
    expected: { logs: [], error: { kind: 'exception', message: traceback('  File "<program>", line 1, in <module>', '    await tools.charge({})', 'ToolCallError: no funds') } },
    monty: {
      why: 'the error class is RuntimeError, and Monty marks the whole expression',
      expected: { logs: [], error: { kind: 'exception', message: traceback('  File "<program>", line 1, in <module>', '    await tools.charge({})', '    ~~~~~~~~~~~~~~~~~~~~~~', 'RuntimeError: no funds') } },
    },
  },
  'a call takes one argument, as the SDK\'s signature says': {
    program: 'out = []\nfor call in [lambda: tools.echo(), lambda: tools.echo({}, 2)]:\n    try:\n        await call()\n    except TypeError as e:\n        out.append(str(e))\nreturn out',
    functions: { echo: (args) => args },
    expected: { logs: [], value: ["echo() missing 1 required positional argument: 'args'", 'echo() takes 1 positional argument but 2 were given'] },
  },
  'calls overlap under asyncio.gather and come back in order': {
    program: 'import asyncio\nreturn await asyncio.gather(*[tools.twice({"i": i}) for i in range(5)])',
    functions: { twice: async ({ i }) => { await sleep(5 - i); return i * 2 } },
    expected: { logs: [], value: [0, 2, 4, 6, 8] },
  },
  'an awaited sleep lets the other tasks run': {
    program: 'import asyncio\nasync def after(s, v):\n    await asyncio.sleep(s)\n    return v\nreturn await asyncio.gather(after(0.2, "slow"), after(0.05, "fast"), tools.echo({"v": 1}))',
    functions: { echo: (args) => args },
    expected: { logs: [], value: ['slow', 'fast', { v: 1 }] },
  },
  'asyncio.gather with return_exceptions gives each failure as its result': {
    program: 'import asyncio\nr = await asyncio.gather(tools.echo({"v": 1}), tools.charge({}), return_exceptions=True)\nreturn [r[0], str(r[1]), r[1].toolName, isinstance(r[1], ToolCallError)]',
    functions: { echo: (args) => args, charge: () => { throw new Error('declined') } },
    expected: { logs: [], value: [{ v: 1 }, 'declined', 'charge', true] },
  },
  'tasks from create_task and ensure_future give their results when awaited or gathered': {
    program: 'import asyncio\nasync def job(v):\n    print("job", v)\n    return await tools.echo(v)\nt = asyncio.create_task(job(1))\nu = asyncio.ensure_future(job(2))\nprint("made")\nreturn [await t] + await asyncio.gather(u, asyncio.create_task(job(3)))',
    functions: { echo: (args) => args },
    expected: { logs: ['made', 'job 1', 'job 2', 'job 3'], value: [1, 2, 3] },
  },
  'asyncio.as_completed gives results in the order they complete': {
    program: 'import asyncio\nfrom asyncio import as_completed\nasync def late(v, s):\n    await asyncio.sleep(s)\n    return v\nout = []\nfor next_done in as_completed([late("slow", 0.2), late("fast", 0.05), tools.echo("now")]):\n    out.append(await next_done)\nreturn out',
    functions: { echo: (args) => args },
    expected: { logs: [], value: ['now', 'fast', 'slow'] },
  },
  'dataclasses.asdict, astuple and fields, nested values included': {
    program: 'import dataclasses\nfrom dataclasses import dataclass, field, asdict\n@dataclass\nclass Item:\n    sku: str\n    qty: int = 1\n@dataclass\nclass Order:\n    id: str\n    items: list = field(default_factory=list)\no = Order("A-1", [Item("x"), Item("y", 2)])\nreturn [asdict(o), dataclasses.astuple(o), [f.name for f in dataclasses.fields(o)]]',
    expected: { logs: [], value: [{ id: 'A-1', items: [{ sku: 'x', qty: 1 }, { sku: 'y', qty: 2 }] }, ['A-1', [['x', 1], ['y', 2]]], ['id', 'items']] },
  },
  'statistics, with CPython\'s exact sums and correctly rounded roots': {
    program: 'import statistics\nfrom statistics import median as m, StatisticsError\ntry:\n    statistics.mean([])\nexcept StatisticsError as e:\n    empty = str(e)\nreturn [statistics.mean([1, 2, 3]), statistics.mean([0.1, 0.2, 0.3]), m(x for x in [3, 1, 2, 4]), statistics.stdev([1.5, 2.5, 2.5, 2.75, 3.25, 4.75]), statistics.pvariance([1, 2, 4]), statistics.mode("aab"), statistics.multimode("aabbc"), statistics.fmean([1, 2], weights=[3, 1]), empty]',
    expected: { logs: [], value: [2, 0.2, 2.5, 1.0810874155219827, 1.5555555555555556, 'a', ['a', 'b'], 1.25, 'mean requires at least one data point'] },
  },
  'uuid: parsed, named and random UUIDs': {
    program: 'import uuid\nfrom uuid import UUID\nu = UUID("{12345678-1234-5678-1234-567812345678}")\nr = uuid.uuid4()\nreturn [str(u), repr(u), u.hex, u.urn, str(uuid.uuid5(uuid.NAMESPACE_DNS, "example.com")), str(uuid.uuid3(uuid.NAMESPACE_URL, "a")), r.version, UUID(str(r)) == r, str(r)[14]]',
    expected: { logs: [], value: ['12345678-1234-5678-1234-567812345678', "UUID('12345678-1234-5678-1234-567812345678')", '12345678123456781234567812345678', 'urn:uuid:12345678-1234-5678-1234-567812345678', 'cfbff0d1-9375-5685-968c-48ce8b15ae17', '33838e93-63bc-3732-bf9e-b68d970b79c2', 4, true, '4'] },
  },
  'operator, heapq, string, html, contextlib and secrets': {
    program: 'import heapq, string, html, secrets\nfrom operator import itemgetter\nfrom contextlib import suppress\nh = []\nfor x in [5, 1, 4, 1, 3]:\n    heapq.heappush(h, x)\nlayout = list(h)\nwith suppress(KeyError):\n    {}["x"]\nrows = sorted([{"a": 2, "b": "x"}, {"a": 1, "b": "y"}], key=itemgetter("a"))\nreturn [layout, heapq.heappop(h), heapq.nlargest(2, [3, 9, 4]), heapq.nlargest(-1, [3]), list(heapq.merge([3, 1], [2])), string.capwords("big  world"), string.punctuation, html.escape("<a href=\'x\'>&</a>"), [r["b"] for r in rows], len(secrets.token_hex(4))]',
    expected: { logs: [], value: [[1, 1, 4, 5, 3], 1, [9, 4], [], [2, 3, 1], 'Big World', '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~', '&lt;a href=&#x27;x&#x27;&gt;&amp;&lt;/a&gt;', ['y', 'x'], 8] },
  },
  'textwrap: wrap, fill, dedent and indent': {
    program: 'import textwrap\nfrom textwrap import dedent\ntext = "a long line of text that wraps around " * 3\nreturn [textwrap.wrap(text, 30), textwrap.fill("x  y\\tz", width=5, initial_indent="> "), dedent("    a\\n      b\\n    c"), textwrap.indent("a\\n\\nb", "  ")]',
    expected: { logs: [], value: [['a long line of text that wraps', 'around a long line of text', 'that wraps around a long line', 'of text that wraps around'], '> x\ny\nz', 'a\n  b\nc', '  a\n\n  b'] },
  },
  'textwrap.shorten, and wrap with max_lines': {
    program: 'import textwrap\ntext = "The quick brown fox jumps over the lazy dog"\nreturn [textwrap.shorten(text, width=20), textwrap.shorten("  a   b  ", 10), textwrap.shorten(text, 12, placeholder="..."), textwrap.wrap(text, 15, max_lines=2), textwrap.fill(text, 10, max_lines=3, placeholder=" ~")]',
    expected: { logs: [], value: ['The quick [...]', 'a b', 'The quick...', ['The quick brown', 'fox jumps [...]'], 'The quick\nbrown fox\njumps ~'] },
  },
  'textwrap of text with hyphens': {
    program: 'import textwrap\nreturn textwrap.wrap("well-known", 5)',
    expected: { logs: [], value: ['well-', 'known'] },
    monty: {
      why: 'CPython breaks words at hyphens by rules the stand-in does not take: it refuses rather than break them otherwise',
      expected: { logs: [], error: { kind: 'exception', message: traceback('  File "<program>", line 2, in <module>', '    return textwrap.wrap("well-known", 5)', '           ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~', "NotImplementedError: textwrap of text with hyphens is not supported on engine 'monty' (pass break_on_hyphens=False)") } },
    },
  },
  'from math import *': {
    program: 'from math import *\nreturn [floor(e), round(pi, 3), sqrt(16), isclose(tau, 2 * pi)]',
    expected: { logs: [], value: [2, 3.142, 4.0, true] },
  },
  'a task the program does not keep': {
    program: 'import asyncio\nasyncio.create_task(tools.echo("x"))\nawait asyncio.sleep(0.01)\nreturn 2',
    functions: { echo: (args) => args },
    expected: { logs: [], value: 2 },
    monty: {
      why: 'a stand-in task starts only when it is awaited: one the program drops is refused, not left undone',
      expected: { logs: [], error: { kind: 'exception', message: traceback('  File "<program>", line 2, in <module>', '    asyncio.create_task(tools.echo("x"))', "NotImplementedError: a task of asyncio.create_task that the program does not keep is not supported on engine 'monty': its work would start only when it is awaited") } },
    },
  },
  'str methods read from the type, and re.sub with a function': {
    program: 'import re\nfrom re import subn\nwords = ["banana", "Apple", "cherry"]\ntry:\n    str.lower(5)\nexcept TypeError as e:\n    refused = str(e)\ndef bump(m):\n    return str(int(m.group(1)) + 1)\nreturn [sorted(words, key=str.lower), list(map(str.strip, [" a ", "b "])), str.join(",", words), refused, re.sub(r"(\\d+)", bump, "v1.9"), re.sub("a", lambda m: None, "banana", 2), subn(r"\\d", lambda m: "#", "a1b2c3", 2), subn(r"\\d", "#", "a1b2")]',
    expected: { logs: [], value: [['Apple', 'banana', 'cherry'], ['a', 'b'], 'banana,Apple,cherry', "descriptor 'lower' for 'str' objects doesn't apply to a 'int' object", 'v2.10', 'bnna', ['a#b#c3', 2], ['a#b#', 2]] },
  },
  'json.dumps with a default, in the order CPython meets the values': {
    program: 'import json\nfrom json import dumps\nfrom collections import Counter, namedtuple\nfrom datetime import date\nP = namedtuple("P", ["x", "y"])\nseen = []\ndef note(o):\n    seen.append(str(o))\n    return str(o)\nlooped = []\nlooped.append(looped)\ntry:\n    json.dumps(looped, default=str)\nexcept ValueError as e:\n    circular = str(e)\nreturn [json.dumps({"z": date(2026, 1, 3), "a": [date(2026, 1, 1), (1, None)]}, default=note, sort_keys=True), seen, circular, dumps({"c": Counter("aab"), "p": P(1, 2), (1, 2): date(2026, 1, 1)}, default=note, skipkeys=True)]',
    expected: { logs: [], value: ['{"a": ["2026-01-01", [1, null]], "z": "2026-01-03"}', ['2026-01-01', '2026-01-03'], 'Circular reference detected', '{"c": {"a": 2, "b": 1}, "p": [1, 2]}'] },
  },
  'timedelta of fractional days, hours and microseconds, with round-half-even microseconds': {
    program: 'import datetime\nfrom datetime import timedelta, datetime as moment\nfrom statistics import mean\nd = timedelta(days=1, hours=2.5, minutes=-0.75)\nreturn [str(d), str(datetime.timedelta(weeks=0.1)), isinstance(d, timedelta), str(moment(2026, 1, 1) - timedelta(hours=0.25)), str(timedelta(microseconds=2.5)), str(timedelta(microseconds=3.5)), str(timedelta(seconds=round(mean([1, 2]), 1))), timedelta(hours=1.5).total_seconds()]',
    expected: { logs: [], value: ['1 day, 2:29:15', '16:48:00', true, '2025-12-31 23:45:00', '0:00:00.000002', '0:00:00.000004', '0:00:01.500000', 5400] },
  },
  'callable, which Monty lacks': {
    program: "import functools, json\nclass C:\n    def m(self): return 1\nclass K:\n    def __call__(self): return 2\ndef f(): pass\nc = C()\nreturn [callable(f), callable(lambda: 0), callable(len), callable(print), callable(C), callable(c), callable(c.m), callable(K()), callable(1), callable(\"s\"), callable([]), callable(None), callable(json.dumps), callable(functools.partial(len)), callable(json), len(list(filter(callable, [f, 1, C])))]",
    expected: { logs: [], value: [true, true, true, true, true, false, true, true, false, false, false, false, true, true, false, 2] },
  },
  'asyncio.run inside the program': {
    program: 'import asyncio\nasync def main():\n    return 1\ntry:\n    asyncio.run(main())\nexcept RuntimeError as e:\n    return str(e)',
    expected: { logs: ["<program>:7: RuntimeWarning: coroutine 'main' was never awaited", '  return str(e)'], value: 'asyncio.run() cannot be called from a running event loop' },
    monty: {
      why: 'the program already runs on the loop, so asyncio.run refuses, as on CPython; Monty keeps no warnings of coroutines never awaited',
      expected: { logs: [], value: 'asyncio.run() cannot be called from a running event loop' },
    },
  },
  'the special methods Monty calls, as CPython calls them': {
    program: "import math, copy\nfrom dataclasses import dataclass\nclass V:\n    def __init__(self, x): self.x = x\n    def __repr__(self): return f\"V({self.x})\"\n    def __str__(self): return f\"<{self.x}>\"\n    def __eq__(self, o): return isinstance(o, V) and self.x == o.x\n    def __hash__(self): return hash(self.x)\n    def __call__(self, y): return self.x * y\n    def __getitem__(self, k): return self.x + k\n    def __contains__(self, k): return k == self.x\n    def __iter__(self): return iter([self.x, -self.x])\n    def __int__(self): return 7\n    def __float__(self): return 7.5\n    def __index__(self): return 1\n    def __round__(self, n=None): return 3\n    def __floor__(self): return 1\n    def __ceil__(self): return 2\n    def __trunc__(self): return 0\n    def __neg__(self): return V(-self.x)\n    def __pos__(self): return \"pos\"\n    def __abs__(self): return 99\n    def __invert__(self): return \"inv\"\n    def __add__(self, o): return V(self.x + o)\n    def __radd__(self, o): return V(o + self.x)\n    def __sub__(self, o): return \"sub\"\n    def __rsub__(self, o): return \"rsub\"\n    def __mul__(self, o): return \"mul\"\n    def __rmul__(self, o): return \"rmul\"\n    def __truediv__(self, o): return \"div\"\n    def __floordiv__(self, o): return \"fdiv\"\n    def __mod__(self, o): return \"mod\"\n    def __pow__(self, o): return \"pow\"\n    def __matmul__(self, o): return \"mm\"\n    def __and__(self, o): return \"and\"\n    def __or__(self, o): return \"or\"\n    def __xor__(self, o): return \"xor\"\n    def __lshift__(self, o): return \"ls\"\n    def __rshift__(self, o): return \"rs\"\n    def __divmod__(self, o): return \"dm\"\n    def __copy__(self): return \"copied\"\n    def __enter__(self): return self.x\n    def __exit__(self, *info): return False\nclass Count:\n    def __init__(self): self.n = 0\n    def __iter__(self): return self\n    def __next__(self):\n        self.n += 1\n        if self.n > 3:\n            raise StopIteration\n        return self.n\n@dataclass\nclass D:\n    a: int\n    def __post_init__(self): self.b = self.a * 2\nv = V(2)\nwith V(5) as inside:\n    pass\nreturn [repr(v), str(v), f\"{v}\", v == V(2), len({V(1), V(1)}), v(3), v[10], 2 in v, list(v), int(v), float(v), [0, 1][v], round(v), math.floor(v), math.ceil(v), math.trunc(v), repr(-v), +v, abs(v), ~v, repr(v + 1), repr(1 + v), v - 1, 1 - v, v * 1, 1 * v, v / 1, v // 1, v % 1, v ** 1, v @ 1, v & 1, v | 1, v ^ 1, v << 1, v >> 1, divmod(v, 1), copy.copy(v), inside, list(Count()), D(4).b]",
    expected: { logs: [], value: ['V(2)', '<2>', '<2>', true, 1, 6, 12, true, [2, -2], 7, 7.5, 1, 3, 1, 2, 0, 'V(-2)', 'pos', 99, 'inv', 'V(3)', 'V(3)', 'sub', 'rsub', 'mul', 'rmul', 'div', 'fdiv', 'mod', 'pow', 'mm', 'and', 'or', 'xor', 'ls', 'rs', 'dm', 'copied', 5, [1, 2, 3], 8] },
  },
  'the reflected operators Monty calls, as CPython calls them': {
    program: 'class R:\n    def __rtruediv__(self, o): return "rt"\n    def __rfloordiv__(self, o): return "rfd"\n    def __rmod__(self, o): return "rm"\n    def __rpow__(self, o): return "rp"\n    def __rmatmul__(self, o): return "rmm"\n    def __rdivmod__(self, o): return "rdm"\n    def __rand__(self, o): return "ra"\n    def __ror__(self, o): return "ro"\n    def __rxor__(self, o): return "rx"\n    def __rlshift__(self, o): return "rl"\n    def __rrshift__(self, o): return "rr"\nr = R()\nreturn [1 / r, 1 // r, 1 % r, 1 ** r, 1 @ r, divmod(1, r), 1 & r, 1 | r, 1 ^ r, 1 << r, 1 >> r]',
    expected: { logs: [], value: ['rt', 'rfd', 'rm', 'rp', 'rmm', 'rdm', 'ra', 'ro', 'rx', 'rl', 'rr'] },
  },
  'a special method set on a class once it is made': {
    program: 'class Basket:\n    pass\nBasket.__bool__ = lambda self: False\nreturn "full" if Basket() else "empty"',
    expected: { logs: [], value: 'empty' },
    monty: {
      why: 'Monty never calls __bool__: the program is refused before it starts',
      expected: { logs: [], error: { kind: 'exception', message: traceback('  File "<program>", line 3, in <module>', '    Basket.__bool__ = lambda self: False', "NotImplementedError: Monty does not support the special method '__bool__' (the program sets it on 'Basket')") } },
    },
  },
  'a class whose special method decides a truth test': {
    program: 'print(await tools.echo("first"))\nclass Basket:\n    def __init__(self): self.items = []\n    def __len__(self): return len(self.items)\nreturn "full" if Basket() else "empty"',
    functions: { echo: (args) => args },
    expected: { logs: ['first'], value: 'empty' },
    monty: {
      why: 'Monty never calls __len__ (an object is true in a truth test whatever its length): the program is refused before it starts, so no binding is called',
      expected: { logs: [], error: { kind: 'exception', message: traceback('  File "<program>", line 4, in <module>', '    def __len__(self): return len(self.items)', "NotImplementedError: Monty does not support the special method '__len__' (class 'Basket' defines it)") } },
    },
  },
  'statistics.stdev of data with an infinity fails': {
    program: 'import statistics\ntry:\n    statistics.stdev([1.0, float("inf")])\nexcept Exception as e:\n    return type(e).__name__',
    expected: { logs: [], value: 'AttributeError' },
    monty: {
      why: 'CPython 3.11 fails reading a float\'s numerator; the stand-in raises ValueError, as CPython 3.13 does',
      expected: { logs: [], value: 'ValueError' },
    },
  },
  'round of a float to some digits rounds its exact value': {
    program: 'return [round(2.675, 2), round(-2.675, 2), round(0.125, 2), round(2.5), round(3.5, 0), round(1234.5678, -2), round(15, -1), str(round(-0.004, 2))]',
    expected: { logs: [], value: [2.67, -2.67, 0.12, 2, 4.0, 1200.0, 20, '-0.0'] },
  },
  'an exception reads as CPython prints it, with the program\'s own lines': {
    program: 'def div(a, b):\n    return a / b\n\ndiv(1, 0)',
    expected: { logs: [], error: { kind: 'exception', message: traceback('  File "<program>", line 4, in <module>', '    div(1, 0)', '  File "<program>", line 2, in div', '    return a / b', '           ~~^~~', 'ZeroDivisionError: division by zero') } },
    monty: {
      why: 'Monty marks the whole expression, without CPython\'s caret under its operator, and names the frame of the call',
      expected: { logs: [], error: { kind: 'exception', message: traceback('  File "<program>", line 4, in <module>', '    div(1, 0)', '    ~~~~~~~~~', '  File "<program>", line 2, in div', '    return a / b', '           ~~~~~', 'ZeroDivisionError: division by zero') } },
    },
  },
  'values JSON cannot carry exactly are invalid-output': {
    program: 'return [float("nan")]',
    expected: { logs: [], error: { kind: 'invalid-output', message: 'the return value is not lossless JSON: nan is not a finite number' } },
  },
  'an integer past 2^53 a double does not hold is invalid-output': {
    program: 'return 2**53 + 1',
    expected: { logs: [], error: { kind: 'invalid-output', message: 'the return value is not lossless JSON: the integer 9007199254740993 is beyond what a JSON number carries exactly (2**53)' } },
  },
  'a dict with a key that is not a string is invalid-output': {
    program: 'return {1: 2}',
    expected: { logs: [], error: { kind: 'invalid-output', message: 'the return value is not lossless JSON: a dict key is int, not str' } },
  },
  'a set is invalid-output': {
    program: 'return {1, 2}',
    expected: { logs: [], error: { kind: 'invalid-output', message: 'the return value is not lossless JSON: set is not a JSON value' } },
  },
  'a value past maxValueBytes is output-limit': {
    program: 'return "x" * 40000',
    expected: { logs: [], error: { kind: 'output-limit', message: 'the return value is larger than maxValueBytes (32768 bytes)' } },
  },
  'an argument that is not lossless JSON is refused in the program': {
    program: 'try:\n    await tools.echo({"n": 2**64 + 1})\nexcept TypeError as e:\n    return str(e)',
    functions: { echo: (args) => args },
    expected: { logs: [], value: 'tools.echo: the argument must be lossless JSON: the integer 18446744073709551617 is beyond what a JSON number carries exactly (2**53)' },
  },
  'the environment is empty and no module past the engine\'s own imports': {
    program: 'import os\ntry:\n    import numpy\nexcept ImportError as e:\n    return [os.getenv("HOME"), type(e).__name__]',
    expected: { logs: [], value: [null, 'ModuleNotFoundError'] },
  },
}

for (const engine of ENGINES) {
  describe(`engine '${engine}'`, () => {
    let runtime, dispose
    test.before(async () => ({ runtime, dispose } = await setup({ engine, prepared: 2 })))
    test.after(() => dispose())

    for (const [name, { program, functions = {}, expected, monty }] of Object.entries(CASES)) {
      const differs = engine === 'monty' && monty !== undefined
      test(differs ? `${name} (differs: ${monty.why})` : name, async () => {
        assert.deepEqual(await runtime.run({ program, bindings: tools(functions) }), differs ? monty.expected : expected)
      })
    }

    test('logs stop at maxLogBytes with the marker last', async () => {
      const small = await setup({ engine, prepared: 0, maxLogBytes: 64 })
      try {
        const result = await small.runtime.run({ program: 'for i in range(100):\n    print("line", i)\nreturn 7', bindings: [] })
        assert.deepEqual(result, { logs: [...Array.from({ length: 10 }, (_, i) => `line ${i}`), logTruncationMarker(64)], value: 7 })
      } finally {
        await small.dispose()
      }
    })

    test('budgets: busy CPU and a power no interpreter can stop end as timeout, the wall clock too, an abort as abort', async () => {
      const tight = await setup({ engine, prepared: 0, cpuSeconds: 1, maxWallMs: 20_000 })
      try {
        assert.deepEqual(await tight.runtime.run({ program: 'while True:\n    pass', bindings: [] }),
          { logs: [], error: { kind: 'timeout', message: 'CPU budget exhausted (1s)' } })
        // Monty refuses 10**10**8 up front (its result would pass the memory limit); a smaller one it
        // computes in one step its own time limit cannot stop (10**(3 * 10**7) here, about 12 MB).
        const power = engine === 'monty' ? '10**(3 * 10**7)' : '10**10**8'
        assert.deepEqual(await tight.runtime.run({ program: `print("big")\nx = ${power}`, bindings: [] }),
          { logs: ['big'], error: { kind: 'timeout', message: 'CPU budget exhausted (1s)' } })
      } finally {
        await tight.dispose()
      }
      const wall = await setup({ engine, prepared: 0, maxWallMs: 500 })
      try {
        assert.deepEqual(await wall.runtime.run({ program: 'import asyncio\nprint("waiting")\nawait asyncio.sleep(30)', bindings: [] }),
          { logs: ['waiting'], error: { kind: 'timeout', message: 'wall-clock ceiling reached (500ms)' } })
      } finally {
        await wall.dispose()
      }
      const controller = new AbortController()
      setTimeout(() => controller.abort('user pressed stop'), 300)
      assert.deepEqual(await runtime.run({ program: 'import time\ntime.sleep(30)', bindings: [], signal: controller.signal }),
        { logs: [], error: { kind: 'abort', message: 'user pressed stop' } })
    })

    test('100 concurrent runs awaiting bindings all complete, and a flood of 20 000 calls waits in the program', async () => {
      let waiting = 0
      let release
      const gate = new Promise((resolve) => { release = resolve })
      const functions = { wait: async ({ i }) => { if (++waiting === 100) release(); await gate; return i } }
      const results = await Promise.all(Array.from({ length: 100 }, (_, i) => runtime.run({ program: `return await tools.wait({"i": ${i}}) + 1`, bindings: tools(functions) })))
      assert.deepEqual(results.map((result) => result.value), Array.from({ length: 100 }, (_, i) => i + 1))
      const flood = await runtime.run({
        program: 'import asyncio\nr = await asyncio.gather(*[tools.echo({"i": i}) for i in range(20_000)])\nreturn [len(r), r[0]["i"], r[-1]["i"]]',
        bindings: tools({ echo: (args) => args }),
      })
      assert.deepEqual(flood, { logs: [], value: [20_000, 0, 19_999] })
    })

    test('disposal ends the runs in flight as aborted', async () => {
      const doomed = await setup({ engine, prepared: 1 })
      const settled = doomed.runtime.run({ program: 'import time\nprint("started", flush=True)\ntime.sleep(30)', bindings: [] })
      await sleep(300)
      await doomed.dispose()
      assert.deepEqual(await settled, { logs: ['started'], error: { kind: 'abort', message: 'runtime disposed' } })
    })
  })
}

describe('engine \'monty\' alone', () => {
  test('its runs are the helper\'s forked processes, in every layer of the sandbox', async () => {
    const { runtime, dispose } = await setup({ engine: 'monty', prepared: 0 })
    try {
      assert.deepEqual(runtime.interpreter.engine, 'monty')
      assert.deepEqual(runtime.sandbox.map(([name]) => name), ['descriptors', 'parent-death', 'memory', 'capabilities', 'no-new-privs', 'landlock', 'seccomp'])
      assert.deepEqual(runtime.sandbox.filter(([, missing]) => missing !== null), [])
    } finally {
      await dispose()
    }
  })

  test('values past a quarter of the address space raise MemoryError, however they grow, and the next run is served', async () => {
    const { runtime, dispose } = await setup({ engine: 'monty', prepared: 1, addressSpaceMb: 256 })
    try {
      // What is asked for, and what is live already.
      const asked = await runtime.run({ program: 'x = "a" * (10**9)', bindings: [] })
      assert.equal(asked.error.kind, 'exception')
      assert.match(asked.error.message, /^Traceback \(most recent call last\):\n {2}File "<program>", line 1, in <module>\n {4}x = "a" \* \(10\*\*9\)\n {8}~{13}\nMemoryError: memory limit exceeded: 10000\d{5} bytes > 67108864 bytes$/)
      const grown = await runtime.run({ program: 'x = []\nwhile True:\n    x.append("a" * 1000)', bindings: [] })
      assert.equal(grown.error.kind, 'exception')
      assert.match(grown.error.message, /^MemoryError: memory limit exceeded: \d+ bytes > 67108864 bytes$/)
      assert.deepEqual(await runtime.run({ program: 'return 1', bindings: [] }), { logs: [], value: 1 })
    } finally {
      await dispose()
    }
  })

  test('long values and text cross the channel or meet their budgets, with no copy that takes the run process down', async () => {
    const { runtime, dispose } = await setup({ engine: 'monty', prepared: 1, maxLogBytes: 4096 })
    try {
      // Each took the run process down (SIGSEGV, the allocator's ceiling) before it was mended.
      assert.deepEqual(await runtime.run({ program: 'out = ["a" * (1 << 26)]\nreturn out', bindings: [] }),
        { logs: [], error: { kind: 'output-limit', message: 'the return value is larger than maxValueBytes (32768 bytes)' } })
      assert.deepEqual(await runtime.run({ program: 'return await tools.size("a" * (1 << 25))', bindings: tools({ size: (text) => text.length }) }),
        { logs: [], value: 2 ** 25 })
      const printed = await runtime.run({ program: 'print("ab\\n" * (1 << 24))\nreturn 2', bindings: [] })
      assert.deepEqual(printed, { logs: [...Array(2048).fill('ab'), logTruncationMarker(4096)], value: 2 })
    } finally {
      await dispose()
    }
  })

  test('programs that would take a native stack down end as exceptions, and the next run is served', async () => {
    const { runtime, dispose } = await setup({ engine: 'monty', prepared: 1 })
    const lastLine = (result) => [result.error?.kind, result.error?.message.split('\n').at(-1)]
    try {
      assert.deepEqual(lastLine(await runtime.run({ program: 'def f(n):\n    return f(n + 1)\nf(0)', bindings: [] })),
        ['exception', 'RecursionError: maximum recursion depth exceeded'])
      for (const [open, close] of [['[', ']'], ['(', ')']]) {
        assert.deepEqual(lastLine(await runtime.run({ program: `x = ${open.repeat(100_000)}1${close.repeat(100_000)}`, bindings: [] })),
          ['exception', 'SyntaxError: Source is too deeply nested'])
      }
      assert.deepEqual(lastLine(await runtime.run({ program: 'import json\nv = []\nfor i in range(100000):\n    v = [v]\nreturn json.dumps(v)', bindings: [] })),
        ['exception', 'RecursionError: maximum recursion depth exceeded'])
      assert.deepEqual(await runtime.run({ program: 'return 1', bindings: [] }), { logs: [], value: 1 })
    } finally {
      await dispose()
    }
  })

  test('files and the host\'s processes are out of reach: the sandbox answers PermissionError', async () => {
    const { runtime, dispose } = await setup({ engine: 'monty', prepared: 0 })
    try {
      const result = await runtime.run({ program: 'from pathlib import Path\ntry:\n    Path("/etc/passwd").read_text()\nexcept PermissionError as e:\n    return str(e)', bindings: [] })
      assert.deepEqual(result, { logs: [], value: '[Errno 13] Permission denied: Path.read_text is not available in the sandbox' })
    } finally {
      await dispose()
    }
  })

  test('nothing a run starts outlives it: its process ends with its run, its zygote with the runtime', async () => {
    const { runtime, dispose } = await setup({ engine: 'monty', prepared: 2 })
    assert.deepEqual(await runtime.run({ program: 'return 1', bindings: [] }), { logs: [], value: 1 })
    const [zygote] = helperPids(process.pid)
    assert.ok(await until(() => helperPids(zygote).length === 2, 2000), 'two processes prepared')
    const settled = runtime.run({ program: 'import time\ntime.sleep(600)', bindings: [] })
    assert.ok(await until(() => helperPids(zygote).length === 3, 2000), 'the run\'s process and two prepared')
    const processes = helperPids(zygote)
    await dispose()
    assert.deepEqual(await settled, { logs: [], error: { kind: 'abort', message: 'runtime disposed' } })
    assert.ok(await until(() => ![zygote, ...processes].some(alive), 2000), `alive after disposal: ${[zygote, ...processes].filter(alive)}`)
  })
})
