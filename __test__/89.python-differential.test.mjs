// Engine 'monty' against engine 'cpython' on the same generated expressions: where Monty evaluates
// one, its repr is CPython's, and where CPython raises, Monty raises the same class of error.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Context } from '@deepseek-ai/cordis'
import PythonCodeRuntime from 'dsh-code-runtime-v8/python'
import { expressions, reprsProgram } from './fixtures/python-expressions.mjs'

async function setup(engine) {
  const ctx = new Context()
  const fiber = await ctx.plugin(PythonCodeRuntime, { engine, maxValueBytes: 4 << 20 })
  return { runtime: ctx.get('codeRuntime'), dispose: () => fiber.dispose() }
}

test('1 200 generated expressions: Monty gives the repr, or the error class, CPython gives', async () => {
  const cpython = await setup('cpython')
  const monty = await setup('monty')
  try {
    for (const seed of [1, 2]) {
      const list = expressions(seed, 600)
      const program = reprsProgram(list)
      const [expected, got] = await Promise.all([cpython.runtime.run({ program, bindings: [] }), monty.runtime.run({ program, bindings: [] })])
      assert.equal(expected.error, undefined)
      assert.equal(got.error, undefined)
      const differing = list.flatMap((expression, at) => (expected.value[at] === got.value[at] ? [] : [[expression, expected.value[at], got.value[at]]]))
      assert.deepEqual(differing, [], `seed ${seed}`)
      // The draw reaches both values and errors.
      assert.ok(expected.value.some((repr) => repr === 'ValueError') && expected.value.filter((repr) => !/Error$/.test(repr)).length > 400)
    }
  } finally {
    await cpython.dispose()
    await monty.dispose()
  }
})
