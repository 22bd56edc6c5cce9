#!/usr/bin/env node
// Builds the addon with napi-rs (`--release` for the optimised build) and writes the loader.
import { join } from 'node:path'
import { root, run } from './cargo.mjs'

const napi = join(root, 'node_modules', '.bin', 'napi')
const args = ['build', '--platform', '--js', 'binding.cjs', '--dts', 'binding.d.ts', ...process.argv.slice(2)]
process.exit(run(napi, args))
