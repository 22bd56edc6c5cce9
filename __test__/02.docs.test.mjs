// The documentation is reference: every relative link resolves (a file, and a heading for an
// anchor, by GitHub's slug rules), no page passes its size, and no text in the repository narrates
// the work that produced it. Needs no build.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { test } from 'node:test'
import assert from 'node:assert/strict'

const root = new URL('..', import.meta.url).pathname
const KIB = 1024

const docs = readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)
const pages = ['README.md', 'SECURITY.md', 'CHANGELOG.md', ...docs]
const read = (path) => readFileSync(join(root, path), 'utf8')

/** The text outside fenced code blocks, line for line (a fenced line becomes empty). */
function prose(text) {
  let fence
  return text.split('\n').map((line) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1]
    if (fence === undefined && marker !== undefined) {
      fence = marker
      return ''
    }
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
      return ''
    }
    return line
  })
}

/** A heading's anchor as GitHub makes it: its text without markup, lower-cased, with punctuation
 * dropped and each space a hyphen. */
function slug(heading) {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-')
}

/** The anchors of a Markdown file, repeated headings numbered as GitHub numbers them. */
function anchors(path) {
  const seen = new Map()
  const found = new Set()
  for (const line of prose(read(path))) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const base = slug(heading)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    found.add(count === 0 ? base : `${base}-${count}`)
  }
  return found
}

/** Every inline link and image of a page outside code, with its line. */
function links(path) {
  const found = []
  for (const [index, line] of prose(read(path)).entries()) {
    const text = line.replace(/`[^`]*`/g, 'code')
    for (const [, target] of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      found.push({ line: index + 1, target })
    }
  }
  return found
}

test('every relative link in the documentation resolves, anchors included', () => {
  const broken = []
  for (const page of pages) {
    for (const { line, target } of links(page)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
      const [file, anchor] = target.split('#')
      const path = file === '' ? page : relative(root, join(root, dirname(page), decodeURIComponent(file)))
      if (!existsSync(join(root, path))) {
        broken.push(`${page}:${line}: ${target} (no ${path})`)
        continue
      }
      if (anchor === undefined || !path.endsWith('.md') || statSync(join(root, path)).isDirectory()) continue
      if (!anchors(path).has(decodeURIComponent(anchor))) broken.push(`${page}:${line}: ${target} (no heading #${anchor})`)
    }
  }
  assert.deepStrictEqual(broken, [])
})

test('the pages keep to their sizes', () => {
  const limits = new Map([['README.md', 12 * KIB], ['CHANGELOG.md', 10 * KIB], ...docs.map((page) => [page, 20 * KIB])])
  const over = []
  for (const [page, limit] of limits) {
    const bytes = statSync(join(root, page)).size
    if (bytes > limit) over.push(`${page}: ${bytes} bytes, past ${limit}`)
  }
  assert.deepStrictEqual(over, [])
})

const ORDINAL = '(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|'
  + 'thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|thirtieth|'
  + 'fortieth|fiftieth|(?:twenty|thirty|forty|fifty)-(?:first|second|third|fourth|fifth|sixth|seventh|'
  + 'eighth|ninth)|\\d+(?:st|nd|rd|th))'

/** Narrative of the work rather than the project: a working session named by its ordinal or by
 * where it stands among the others, or a round or wave of changes (a bench's last round is not). */
const NARRATIVE = [
  new RegExp(`\\b${ORDINAL}\\s+sessions?\\b`, 'i'),
  /\b(?:this|last|next|previous|earlier|later|that)\s+sessions?\b/i,
  /\bsession's\s+(?:first|last|start|end|changes?|builds?|fixes|run)\b/i,
  /\b(?:this|previous)\s+round\b|\b(?:this|last|next|previous)\s+wave\b/i,
  new RegExp(`\\bthe\\s+(?!first\\b)${ORDINAL}\\s+round(?:'s|s)?\\b`, 'i'),
]

/** The files whose text the rule covers: the documentation, and the source with its comments. */
function covered() {
  const files = ['README.md', 'SECURITY.md', 'CHANGELOG.md', 'index.js', 'index.d.ts', 'build.rs']
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'target') walk(path)
      } else if (/\.(md|js|mjs|cjs|ts|rs|json|toml|yml)$/.test(entry.name)) {
        files.push(path)
      }
    }
  }
  for (const dir of ['docs', 'src', 'lib', 'crates', 'bench', 'scripts', '__test__', 'examples']) {
    if (existsSync(join(root, dir))) walk(dir)
  }
  return files.filter((path) => existsSync(join(root, path)))
}

test('no text narrates the work instead of the project', () => {
  const told = []
  for (const path of covered()) {
    for (const [index, line] of read(path).split('\n').entries()) {
      if (NARRATIVE.some((pattern) => pattern.test(line))) told.push(`${path}:${index + 1}: ${line.trim().slice(0, 120)}`)
    }
  }
  assert.deepStrictEqual(told, [])
})

test('the checks can fail', () => {
  // Known cases, so that a reading that finds nothing cannot pass.
  assert.ok(NARRATIVE.some((pattern) => pattern.test('measured in the twenty' + '-second sess' + 'ion')))
  assert.ok(NARRATIVE.some((pattern) => pattern.test('as this sess' + 'ion found')))
  assert.ok(NARRATIVE.some((pattern) => pattern.test("this rou" + "nd's fixes")))
  assert.ok(NARRATIVE.some((pattern) => pattern.test("Where the twenty" + "-first rou" + "nd's web.js reads a value")))
  assert.ok(NARRATIVE.some((pattern) => pattern.test('Where the twenty' + '-eighth rou' + 'nd reads a list')))
  assert.ok(!NARRATIVE.some((pattern) => pattern.test('the first round warms up both sides')))
  assert.ok(!NARRATIVE.some((pattern) => pattern.test('`gapMs` after the last round: how long the pool sat idle')))
  assert.ok(!NARRATIVE.some((pattern) => pattern.test('"@deepseek-ai/dsh-session": "^0.1.0-rc.8"')))
  assert.equal(slug("A stop while a `node:` module loads"), 'a-stop-while-a-node-module-loads')
  assert.equal(slug("ICU's memory"), 'icus-memory')
  assert.ok(anchors('docs/limits-and-memory.md').has('budgets'))
  assert.ok(links('README.md').some(({ target }) => target === 'docs/building.md'))
  assert.ok(covered().includes('src/lib.rs'))
})
