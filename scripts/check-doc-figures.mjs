#!/usr/bin/env node
// `node scripts/check-doc-figures.mjs [--ref REF] [--changelog] [--strict]`: lists the figures
// (numbers, commits) of the documentation pages at REF (main unless told) that appear in none of
// the pages of the working tree, each with the line it stood in. A figure is a number of two or
// more digits, a decimal, a power (2^24) or a commit; with --strict, a number with a unit after it
// (MB, ms, %, ...) counts only beside the same unit. The pages are README.md, SECURITY.md,
// CHANGELOG.md and docs/*.md. What it lists is either kept somewhere or dropped on purpose: it
// decides nothing.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = new URL('..', import.meta.url).pathname
const argv = process.argv.slice(2)
const ref = argv.includes('--ref') ? argv[argv.indexOf('--ref') + 1] : 'main'
const withChangelog = argv.includes('--changelog')
const strict = argv.includes('--strict')
const UNIT = /^\s?(%|[KMG]i?B|[mµu]?s|ns|us|bits?|bytes|cells|programs|runs|calls|lines|keys|elements|characters|entries|minutes|x)\b/

const git = (...args) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' })

/** The figures of a text, normalised: thousands' spaces removed, a dash-joined range split. */
function figures(text) {
  const found = []
  const pattern = /\b[0-9a-f]{7,40}\b|\d+\^\d+|\d{1,3}(?: \d{3})+(?:\.\d+)?|\d+(?:\.\d+)?/g
  for (const match of text.matchAll(pattern)) {
    const [token] = match
    if (/^[0-9a-f]+$/.test(token) && /[a-f]/.test(token)) {
      if (/\d/.test(token)) found.push(token.slice(0, 7))
      continue
    }
    const figure = token.replace(/ /g, '')
    if (/^\d$/.test(figure)) continue
    const unit = strict ? UNIT.exec(text.slice(match.index + token.length))?.[1] : undefined
    found.push(unit === undefined ? figure : `${figure} ${unit}`)
  }
  return found
}

const oldPages = git('ls-tree', '--name-only', ref, 'docs/')
  .split('\n')
  .filter((path) => path.endsWith('.md') && path !== 'docs/durable-runs.md')
if (withChangelog) oldPages.push('CHANGELOG.md')

const newPages = ['README.md', 'SECURITY.md', 'CHANGELOG.md']
  .concat(readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`))
const present = new Set(newPages.flatMap((path) => figures(readFileSync(join(root, path), 'utf8'))))

let missing = 0
for (const page of oldPages) {
  const lines = git('show', `${ref}:${page}`).split('\n')
  const report = []
  for (const [index, line] of lines.entries()) {
    const gone = [...new Set(figures(line))].filter((figure) => !present.has(figure))
    if (gone.length) report.push(`  ${index + 1}: ${gone.join(', ')}  | ${line.trim().slice(0, 160)}`)
    missing += gone.length
  }
  if (report.length) console.log(`${page} (${ref}):\n${report.join('\n')}`)
}
console.log(`${missing} figures of ${oldPages.length} pages at ${ref} appear in no page of the working tree`)
