// The addon's Rust is in rooms (docs/architecture.md): each may import only the rooms listed for
// it here, and no module may reach itself through others' imports.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { test } from 'node:test'
import assert from 'node:assert/strict'

const src = new URL('../src/', import.meta.url).pathname

const allowed = {
  bridge: ['engine', 'limits', 'output'],
  helper: ['engine', 'limits', 'output', 'program'],
  engine: ['limits', 'output', 'program'],
  limits: ['output'],
  output: [],
  program: [],
}

/** Every module of the library, as `room::module` (`room` for its mod.rs), with the modules its
 * code names; a path through a room's re-export names the room. */
function moduleGraph() {
  const texts = new Map()
  for (const file of readdirSync(src, { recursive: true })) {
    if (!file.endsWith('.rs') || file.startsWith(`bin${sep}`) || file === 'lib.rs') continue
    const parts = relative(src, join(src, file)).replace(/\.rs$/, '').split(sep)
    const name = parts.at(-1) === 'mod' ? parts.slice(0, -1).join('::') : parts.join('::')
    texts.set(name, readFileSync(join(src, file), 'utf8'))
  }
  const graph = new Map()
  for (const [name, text] of texts) {
    const named = new Set()
    for (const [, room, module] of text.matchAll(/crate::([a-z_]+)(?:::([a-z_]+))?/g)) {
      if (!(room in allowed)) continue
      named.add(texts.has(`${room}::${module}`) ? `${room}::${module}` : room)
    }
    named.delete(name)
    graph.set(name, named)
  }
  return graph
}

const roomOf = (name) => name.split('::')[0]

test('each room imports only the rooms it may', () => {
  const breaches = []
  for (const [name, named] of moduleGraph()) {
    for (const target of named) {
      const [from, to] = [roomOf(name), roomOf(target)]
      if (from !== to && !allowed[from].includes(to)) breaches.push(`${name} -> ${target}`)
    }
  }
  assert.deepStrictEqual(breaches, [])
})

test('no module reaches itself through imports', () => {
  const graph = moduleGraph()
  const cycles = []
  const state = new Map()
  const visit = (name, path) => {
    if (state.get(name) === 'done') return
    if (state.get(name) === 'open') {
      cycles.push([...path.slice(path.indexOf(name)), name].join(' -> '))
      return
    }
    state.set(name, 'open')
    for (const next of graph.get(name) ?? []) visit(next, [...path, name])
    state.set(name, 'done')
  }
  for (const name of graph.keys()) visit(name, [])
  assert.deepStrictEqual(cycles, [])
})

test('the rooms and their modules are all seen', () => {
  const graph = moduleGraph()
  for (const room of Object.keys(allowed)) {
    assert.ok([...graph.keys()].some((name) => roomOf(name) === room), room)
  }
  // A known edge, so that a reading that finds nothing cannot pass.
  assert.ok(graph.get('engine::isolate').has('engine::ops'))
})
