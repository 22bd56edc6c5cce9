// The interpreter a PythonCodeRuntime runs: found and examined once, when the runtime is made.
import { execFileSync } from 'node:child_process'
import { accessSync, constants, existsSync, readFileSync, realpathSync } from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'
import { PREFIX } from '../config.js'

/** The Python side, passed to the interpreter as its `-c` program. */
export const BOOTSTRAP = readFileSync(new URL('../../py/bootstrap.py', import.meta.url), 'utf8')

/** What the interpreter says of itself, unconfined: where it is, and what it imports from. */
const ABOUT = 'import json, os, sys; print(json.dumps({"executable": os.path.realpath(sys.executable), "version": sys.version.split()[0], "path": sys.path, "prefixes": sorted({sys.base_exec_prefix, sys.exec_prefix})}))'

/** Where the dynamic loader finds the interpreter's libraries, and the time zone database (`zoneinfo`). */
const SYSTEM_LIBRARIES = ['/lib', '/lib64', '/usr/lib', '/usr/lib64', '/etc/ld.so.cache', '/usr/share/zoneinfo']

/** `pythonBin` as a path: itself when it names one, else the first match on PATH. */
export function resolvePythonBin(pythonBin) {
  if (pythonBin.includes('/')) return pythonBin
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue
    const candidate = join(dir, pythonBin)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {}
  }
  throw new Error(`${PREFIX} config.pythonBin ${JSON.stringify(pythonBin)} is not on PATH`)
}

/**
 * The interpreter behind `pythonBin` (a version manager's shim is followed to it) and the paths
 * its runs may read: its standard library and site-packages (its `sys.path`), its own libraries,
 * the system's shared libraries, and `readablePaths`.
 */
export function examineInterpreter(pythonBin, readablePaths) {
  const bin = resolvePythonBin(pythonBin)
  let about
  try {
    about = JSON.parse(execFileSync(bin, ['-I', '-c', ABOUT], { env: {}, encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] }))
  } catch (error) {
    const said = String(error.stderr ?? '').trim().split('\n').at(-1) || error.message
    throw new Error(`${PREFIX} config.pythonBin ${JSON.stringify(bin)} is not a working Python interpreter: ${said}`)
  }
  const [major, minor] = about.version.split('.').map(Number)
  if (major !== 3 || minor < 9) {
    throw new Error(`${PREFIX} config.pythonBin ${JSON.stringify(bin)} is Python ${about.version}; 3.9 or later is required`)
  }
  const readable = new Set([about.executable, ...SYSTEM_LIBRARIES])
  for (const prefix of about.prefixes) readable.add(join(prefix, 'lib'))
  for (const entry of about.path) {
    if (entry && isAbsolute(entry)) readable.add(entry)
  }
  for (const path of readablePaths) {
    if (!isAbsolute(path)) throw new Error(`${PREFIX} config.readablePaths must hold absolute paths, got ${JSON.stringify(path)}`)
    readable.add(path)
  }
  // Symlinks resolved: the kernel grants by the file, not by the name that led to it.
  const resolved = new Set()
  for (const path of readable) {
    if (!existsSync(path)) continue
    resolved.add(path)
    resolved.add(realpathSync(path))
  }
  return { executable: about.executable, version: about.version, readable: [...resolved] }
}
