#!/usr/bin/env node
// `npm run pack:local`: builds the release addon and its helper for this machine, places them in
// its npm/<target> package, and writes the tarballs of that package and of the root package into artifacts/.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { root, run } from './cargo.mjs'

const TARGETS = ['linux-x64-gnu', 'linux-arm64-gnu', 'darwin-x64', 'darwin-arm64', 'win32-x64-msvc']

if (run(process.execPath, [join(root, 'scripts', 'build.mjs'), '--release']) !== 0) process.exit(1)
const binary = readdirSync(root).find((name) => /^dsh-code-runtime-v8\..+\.node$/.test(name))
const target = binary.slice('dsh-code-runtime-v8.'.length, -'.node'.length)
const artifacts = join(root, 'artifacts')
rmSync(artifacts, { recursive: true, force: true })
mkdirSync(artifacts)

const packageDir = join(root, 'npm', target)
copyFileSync(join(root, binary), join(packageDir, binary))
const helper = readdirSync(root).find((name) => name.startsWith(`dsh-code-runtime-v8-helper.${target}`))
copyFileSync(join(root, helper), join(packageDir, helper))
const pack = (cwd) => execFileSync('npm', ['pack', '--pack-destination', artifacts, '--json'], { cwd, encoding: 'utf8' })
const packed = [JSON.parse(pack(packageDir))[0]]

// The root package names every binary package as an optional dependency, as published.
const manifestPath = join(root, 'package.json')
const manifest = readFileSync(manifestPath, 'utf8')
const published = JSON.parse(manifest)
published.optionalDependencies = Object.fromEntries(TARGETS.map((t) => [`dsh-code-runtime-v8-${t}`, published.version]))
try {
  writeFileSync(manifestPath, JSON.stringify(published, null, 2) + '\n')
  packed.push(JSON.parse(pack(root))[0])
} finally {
  writeFileSync(manifestPath, manifest)
}
const show = (bytes) => (bytes < 2 ** 20 ? `${(bytes / 2 ** 10).toFixed(1)} KiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`)
for (const { filename, size, unpackedSize } of packed) {
  console.log(`${filename}: ${show(size)} packed, ${show(unpackedSize)} unpacked`)
}
