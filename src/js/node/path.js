// node:path, POSIX only. The working directory of a program is '/'.

import { primordials } from 'ext:core/mod.js';
import { split } from 'ext:dsh/long_strings.js';
import { invalidArgType } from 'ext:dsh/node_errors.js';

const {
  ArrayPrototypeJoin,
  ArrayPrototypePop,
  ArrayPrototypePush,
  StringPrototypeCharCodeAt,
  StringPrototypeEndsWith,
  StringPrototypeLastIndexOf,
  StringPrototypeSlice,
  TypeError,
} = primordials;

const SLASH = 47;
const DOT = 46;

function validateString(value, name) {
  if (typeof value !== 'string') throw invalidArgType(name, 'of type string', value);
}

// The segments of `path` with '.' and empty ones dropped and '..' applied; a relative path keeps
// the '..' that climb above its start, an absolute one drops them.
function resolveSegments(path, absolute) {
  const parts = split(path, '/');
  const out = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (out.length > 0 && out[out.length - 1] !== '..') ArrayPrototypePop(out);
      else if (!absolute) ArrayPrototypePush(out, '..');
    } else {
      ArrayPrototypePush(out, part);
    }
  }
  return out;
}

function resolve(...paths) {
  let joined = '';
  let absolute = false;
  for (let i = paths.length - 1; i >= 0 && !absolute; i--) {
    const path = paths[i];
    validateString(path, `paths[${i}]`);
    if (path.length === 0) continue;
    joined = `${path}/${joined}`;
    absolute = StringPrototypeCharCodeAt(path, 0) === SLASH;
  }
  return `/${ArrayPrototypeJoin(resolveSegments(joined, true), '/')}`;
}

function normalize(path) {
  validateString(path, 'path');
  if (path.length === 0) return '.';
  const absolute = StringPrototypeCharCodeAt(path, 0) === SLASH;
  const trailing = StringPrototypeCharCodeAt(path, path.length - 1) === SLASH;
  let result = ArrayPrototypeJoin(resolveSegments(path, absolute), '/');
  if (result.length === 0) {
    if (absolute) return '/';
    return trailing ? './' : '.';
  }
  if (trailing) result += '/';
  return absolute ? `/${result}` : result;
}

function isAbsolute(path) {
  validateString(path, 'path');
  return path.length > 0 && StringPrototypeCharCodeAt(path, 0) === SLASH;
}

function join(...paths) {
  let joined = '';
  for (let i = 0; i < paths.length; i++) {
    const path = paths[i];
    validateString(path, 'path');
    if (path.length > 0) joined = joined.length === 0 ? path : `${joined}/${path}`;
  }
  return joined.length === 0 ? '.' : normalize(joined);
}

function relative(from, to) {
  validateString(from, 'from');
  validateString(to, 'to');
  if (from === to) return '';
  const fromParts = resolveSegments(resolve(from), true);
  const toParts = resolveSegments(resolve(to), true);
  let common = 0;
  while (common < fromParts.length && common < toParts.length && fromParts[common] === toParts[common]) common++;
  const parts = [];
  for (let i = common; i < fromParts.length; i++) ArrayPrototypePush(parts, '..');
  for (let i = common; i < toParts.length; i++) ArrayPrototypePush(parts, toParts[i]);
  return ArrayPrototypeJoin(parts, '/');
}

// `path` without its trailing slashes, unless it is only slashes.
function trimTrailing(path) {
  let end = path.length;
  while (end > 1 && StringPrototypeCharCodeAt(path, end - 1) === SLASH) end--;
  return StringPrototypeSlice(path, 0, end);
}

// Where the last component of `trimmed` (no trailing slashes) starts.
function lastComponentStart(trimmed) {
  return StringPrototypeLastIndexOf(trimmed, '/') + 1;
}

function dirname(path) {
  validateString(path, 'path');
  if (path.length === 0) return '.';
  const trimmed = trimTrailing(path);
  const slash = lastComponentStart(trimmed) - 1;
  if (slash === -1) return '.';
  if (slash === 0) return '/';
  // Node keeps a leading '//' whole.
  if (slash === 1 && StringPrototypeCharCodeAt(trimmed, 0) === SLASH) return '//';
  return StringPrototypeSlice(trimmed, 0, slash);
}

function basename(path, suffix) {
  if (suffix !== undefined) validateString(suffix, 'suffix');
  validateString(path, 'path');
  const trimmed = trimTrailing(path);
  const start = lastComponentStart(trimmed);
  const base = trimmed === '/' ? '' : StringPrototypeSlice(trimmed, start);
  if (suffix === undefined || suffix.length === 0 || suffix.length > path.length) return base;
  // Node's results, quirks included: a suffix equal to the whole path leaves '', one equal to the
  // name is kept, and a name that is itself the end of the suffix comes back with the path's
  // trailing slashes (an all-slash path, whole).
  if (path === suffix) return '';
  if (base === '') return path;
  if (base === suffix) return base;
  if (StringPrototypeEndsWith(base, suffix)) return StringPrototypeSlice(base, 0, base.length - suffix.length);
  if (StringPrototypeEndsWith(suffix, base)) return StringPrototypeSlice(path, start);
  return base;
}

// The index of the extension's dot in `base`, or -1: none when the only dot leads the name, nor
// for '..'.
function extensionStart(base) {
  const dot = StringPrototypeLastIndexOf(base, '.');
  if (dot <= 0 || base === '..') return -1;
  return dot;
}

function extname(path) {
  validateString(path, 'path');
  const trimmed = trimTrailing(path);
  const base = StringPrototypeSlice(trimmed, lastComponentStart(trimmed));
  const dot = extensionStart(base);
  return dot === -1 ? '' : StringPrototypeSlice(base, dot);
}

function format(pathObject) {
  if (pathObject === null || typeof pathObject !== 'object') {
    throw invalidArgType('pathObject', 'of type object', pathObject);
  }
  const dir = pathObject.dir || pathObject.root;
  let base = pathObject.base;
  if (!base) {
    const ext = pathObject.ext || '';
    base = `${pathObject.name || ''}${ext && StringPrototypeCharCodeAt(ext, 0) !== DOT ? `.${ext}` : ext}`;
  }
  if (!dir) return base;
  return dir === pathObject.root ? `${dir}${base}` : `${dir}/${base}`;
}

function parse(path) {
  validateString(path, 'path');
  const parsed = { root: '', dir: '', base: '', ext: '', name: '' };
  if (path.length === 0) return parsed;
  const absolute = StringPrototypeCharCodeAt(path, 0) === SLASH;
  if (absolute) parsed.root = '/';
  const trimmed = trimTrailing(path);
  const start = lastComponentStart(trimmed);
  if (trimmed === '/') {
    parsed.dir = '/';
    return parsed;
  }
  const base = StringPrototypeSlice(trimmed, start);
  parsed.base = base;
  // Node's parse, unlike its extname, reads '/..' as the name '.' with the extension '.'.
  const dot = base === '..' && start === 1 ? 1 : extensionStart(base);
  parsed.ext = dot === -1 ? '' : StringPrototypeSlice(base, dot);
  parsed.name = dot === -1 ? base : StringPrototypeSlice(base, 0, dot);
  if (start > 1) parsed.dir = StringPrototypeSlice(trimmed, 0, start - 1);
  else if (absolute) parsed.dir = '/';
  return parsed;
}

function toNamespacedPath(path) {
  return path;
}

const path = {
  resolve,
  normalize,
  isAbsolute,
  join,
  relative,
  toNamespacedPath,
  dirname,
  basename,
  extname,
  format,
  parse,
  sep: '/',
  delimiter: ':',
  posix: undefined,
};
path.posix = path;

export default path;
export { basename, dirname, extname, format, isAbsolute, join, normalize, parse, relative, resolve, toNamespacedPath };
export const sep = '/';
export const delimiter = ':';
export const posix = path;
