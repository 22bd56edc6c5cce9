// A payment that waits for a human: the binding suspends the run, the journal is stored (here, in a
// Map standing in for a database), and hours later the approval resumes it in a fresh isolate.
import { Context } from '@deepseek-ai/cordis'
import V8CodeRuntime, { resumption, suspend } from 'dsh-code-runtime-v8'

const ctx = new Context()
await ctx.plugin(V8CodeRuntime, { computeMs: 5_000 })
const runtime = ctx.codeRuntime

const ledger = []
const bindings = [{
  global: 'bank',
  functions: {
    async balance() {
      return 120
    },
    async pay({ to, amount }) {
      const approval = resumption()
      // First call: ask a human. Called again by resume(), with the human's decision.
      if (approval === undefined) return suspend({ question: `Pay ${amount} to ${to}?` })
      if (!approval.resolution.approved) throw new Error(`payment refused by ${approval.resolution.by}`)
      ledger.push({ to, amount })
      return { paid: amount, to }
    },
  },
  errorClass: { name: 'BankError', memberNameProperty: 'operation' },
}]
const program = `
  const balance = await bank.balance({})
  console.log('balance', balance)
  const results = await Promise.allSettled([
    bank.pay({ to: 'alice', amount: 40 }),
    bank.pay({ to: 'mallory', amount: 500 }),
  ])
  return results.map((r) => r.status === 'fulfilled' ? r.value : r.reason.name + ': ' + r.reason.message)
`
// Signed and bound to the tenant: a journal is a bearer token for this scope only.
const options = { secret: 'a server-side secret of 32 bytes or more', scope: { tenant: 'acme', user: 42 } }

const store = new Map()
const first = await runtime.runDurable({ program, bindings }, options)
console.log('status:', first.status)
for (const { id, payload } of first.pending) console.log(`  waiting: call ${id}: ${payload.question}`)
console.log('  printed so far:', first.logs)
store.set('run-1', JSON.stringify(first.journal))

// ... hours later, the human decides.
const journal = JSON.parse(store.get('run-1'))
const [alice, mallory] = first.pending
const done = await runtime.resume({ program, bindings }, journal, {
  [alice.id]: { approved: true, by: 'ops' },
  [mallory.id]: { approved: false, by: 'ops' },
}, options)
console.log('status:', done.status)
console.log(JSON.stringify(done.result, null, 2))
console.log('ledger:', JSON.stringify(ledger))

// The whole run again, offline, from its journal alone: no binding is called.
const replayed = await runtime.replay({ program, bindings }, done.journal, options)
console.log('replay gives the same result:', JSON.stringify(replayed.result) === JSON.stringify(done.result))
