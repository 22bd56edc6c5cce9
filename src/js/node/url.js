// node:url: the WHATWG URL classes, the legacy parse() and format(), and file URLs (POSIX).

import { primordials } from 'ext:core/mod.js';
import { inspect } from 'ext:dsh/inspect.js';
import { URL, URLSearchParams } from 'ext:dsh/web.js';
import path from 'node:path';
import querystring from 'node:querystring';
import { invalidArgType, nodeError } from 'ext:dsh/node_errors.js';

const {
  decodeURIComponent,
  encodeURIComponent,
  NumberPrototypeToString,
  ObjectPrototypeIsPrototypeOf,
  RegExpPrototypeExec,
  SafeSet,
  StringPrototypeCharCodeAt,
  StringPrototypeIncludes,
  StringPrototypeIndexOf,
  StringPrototypeLastIndexOf,
  StringPrototypeReplace,
  StringPrototypeSlice,
  StringPrototypeStartsWith,
  StringPrototypeToLowerCase,
  StringPrototypeToUpperCase,
  StringPrototypeTrim,
  TypeError,
} = primordials;

const isURL = (value) => ObjectPrototypeIsPrototypeOf(URL.prototype, value);

// ---- legacy parse and format ------------------------------------------------------------------

// Schemes whose URLs have a host after '//', and schemes that never have one.
const slashedProtocols = new SafeSet(['http:', 'https:', 'ftp:', 'gopher:', 'file:', 'ws:', 'wss:']);
const hostlessProtocols = new SafeSet(['javascript:']);

// The characters the legacy parser escapes wherever they appear after the host.
const autoEscaped = /[\t\n\r "'<>\\^`{|}]/g;
const escapeOne = (character) =>
  `%${StringPrototypeToUpperCase(StringPrototypeSlice(`0${NumberPrototypeToString(StringPrototypeCharCodeAt(character, 0), 16)}`, -2))}`;

class Url {
  constructor() {
    this.protocol = null;
    this.slashes = null;
    this.auth = null;
    this.host = null;
    this.port = null;
    this.hostname = null;
    this.hash = null;
    this.search = null;
    this.query = null;
    this.pathname = null;
    this.path = null;
    this.href = null;
  }

  format() {
    return format(this);
  }
}

// Node's legacy parser, for the URLs programs write: scheme, '//', user info, host and port, then
// path, query and fragment, with the path kept as written (no dot-segment removal).
function parse(input, parseQueryString = false, slashesDenoteHost = false) {
  if (isURL(input)) input = input.href;
  if (typeof input !== 'string') throw invalidArgType('url', 'of type string', input);
  const url = new Url();
  let rest = StringPrototypeTrim(input);
  const hashAt = StringPrototypeIndexOf(rest, '#');
  if (hashAt !== -1) {
    url.hash = StringPrototypeReplace(StringPrototypeSlice(rest, hashAt), autoEscaped, escapeOne);
    rest = StringPrototypeSlice(rest, 0, hashAt);
  }
  const searchAt = StringPrototypeIndexOf(rest, '?');
  if (searchAt !== -1) {
    url.search = StringPrototypeReplace(StringPrototypeSlice(rest, searchAt), autoEscaped, escapeOne);
    url.query = StringPrototypeSlice(url.search, 1);
    rest = StringPrototypeSlice(rest, 0, searchAt);
  }
  const scheme = RegExpPrototypeExec(/^[a-zA-Z][a-zA-Z0-9+.-]*:/, rest);
  if (scheme !== null) {
    url.protocol = StringPrototypeToLowerCase(scheme[0]);
    rest = StringPrototypeSlice(rest, scheme[0].length);
  }
  const hostless = url.protocol !== null && hostlessProtocols.has(url.protocol);
  if ((url.protocol !== null || slashesDenoteHost) && !hostless && StringPrototypeStartsWith(rest, '//')) {
    url.slashes = true;
    rest = StringPrototypeSlice(rest, 2);
  }
  if (!hostless && (url.slashes || (url.protocol !== null && !slashedProtocols.has(url.protocol)))) {
    const hostEnd = StringPrototypeIndexOf(rest, '/');
    let host = hostEnd === -1 ? rest : StringPrototypeSlice(rest, 0, hostEnd);
    rest = hostEnd === -1 ? '' : StringPrototypeSlice(rest, hostEnd);
    const at = StringPrototypeLastIndexOf(host, '@');
    if (at !== -1) {
      url.auth = decodeURIComponent(StringPrototypeSlice(host, 0, at));
      host = StringPrototypeSlice(host, at + 1);
    }
    const port = RegExpPrototypeExec(/:(\d*)$/, host);
    if (port !== null) {
      if (port[1] !== '') url.port = port[1];
      host = StringPrototypeSlice(host, 0, port.index);
    }
    let hostname = StringPrototypeToLowerCase(host);
    const bracketed = StringPrototypeStartsWith(hostname, '[') && hostname[hostname.length - 1] === ']';
    if (bracketed) hostname = StringPrototypeSlice(hostname, 1, -1);
    // Names past ASCII in their IDNA form.
    else if (RegExpPrototypeExec(/[^\x00-\x7f]/, hostname) !== null) hostname = new URL(`http://${hostname}`).hostname;
    url.hostname = hostname;
    url.host = `${bracketed ? `[${hostname}]` : hostname}${url.port !== null ? `:${url.port}` : ''}`;
  }
  if (rest !== '') url.pathname = StringPrototypeReplace(rest, autoEscaped, escapeOne);
  else if (url.hostname && slashedProtocols.has(url.protocol)) url.pathname = '/';
  if (parseQueryString) url.query = querystring.parse(url.query ?? '');
  if (url.pathname !== null || url.search !== null) url.path = `${url.pathname ?? ''}${url.search ?? ''}`;
  url.href = format(url);
  return url;
}

function formatObject(object) {
  let auth = object.auth || '';
  if (auth) auth = `${StringPrototypeReplace(encodeURIComponent(auth), /%3A/i, ':')}@`;
  let protocol = object.protocol || '';
  let pathname = object.pathname || '';
  let hash = object.hash || '';
  let host = '';
  if (object.host) {
    host = auth + object.host;
  } else if (object.hostname) {
    const hostname = `${object.hostname}`;
    host = auth + (StringPrototypeIncludes(hostname, ':') && hostname[0] !== '[' ? `[${hostname}]` : hostname);
    if (object.port) host += `:${object.port}`;
  }
  let search = object.search || '';
  if (!search && object.query !== null && typeof object.query === 'object') {
    const query = querystring.stringify(object.query);
    if (query) search = `?${query}`;
  }
  if (protocol && protocol[protocol.length - 1] !== ':') protocol += ':';
  pathname = StringPrototypeReplace(StringPrototypeReplace(pathname, /#/g, '%23'), /\?/g, '%3F');
  if (object.slashes || slashedProtocols.has(protocol)) {
    if (object.slashes || host) {
      if (pathname && pathname[0] !== '/') pathname = `/${pathname}`;
      host = `//${host}`;
    } else if (protocol === 'file:') {
      host = '//';
    }
  }
  search = StringPrototypeReplace(search, /#/g, '%23');
  if (hash && hash[0] !== '#') hash = `#${hash}`;
  if (search && search[0] !== '?') search = `?${search}`;
  return `${protocol}${host}${pathname}${search}${hash}`;
}

function format(urlObject, options) {
  if (typeof urlObject === 'string') return formatObject(parse(urlObject));
  if (urlObject === null || (typeof urlObject !== 'object' && typeof urlObject !== 'function')) {
    const shown = urlObject == null ? `${urlObject}` : `type ${typeof urlObject} (${inspect(urlObject)})`;
    throw nodeError(TypeError, 'ERR_INVALID_ARG_TYPE', `The "urlObject" argument must be one of type object or string. Received ${shown}`);
  }
  if (!isURL(urlObject)) return formatObject(urlObject);
  // A WHATWG URL, less the parts `options` leave out.
  const auth = options?.auth ?? true;
  const fragment = options?.fragment ?? true;
  const search = options?.search ?? true;
  let text = `${urlObject.protocol}${urlObject.host !== '' || urlObject.protocol === 'file:' ? '//' : ''}`;
  if (auth && (urlObject.username !== '' || urlObject.password !== '')) {
    text += `${urlObject.username}${urlObject.password !== '' ? `:${urlObject.password}` : ''}@`;
  }
  text += `${urlObject.host}${urlObject.pathname}`;
  if (search) text += urlObject.search;
  if (fragment) text += urlObject.hash;
  return text;
}

// ---- file URLs --------------------------------------------------------------------------------

function fileURLToPath(url) {
  if (typeof url === 'string') {
    try {
      url = new URL(url);
    } catch {
      const error = nodeError(TypeError, 'ERR_INVALID_URL', 'Invalid URL');
      error.input = url;
      throw error;
    }
  } else if (!isURL(url)) {
    throw invalidArgType('path', 'of type string or an instance of URL', url);
  }
  if (url.protocol !== 'file:') throw nodeError(TypeError, 'ERR_INVALID_URL_SCHEME', 'The URL must be of scheme file');
  if (url.hostname !== '' && url.hostname !== 'localhost') {
    throw nodeError(TypeError, 'ERR_INVALID_FILE_URL_HOST', 'File URL host must be "localhost" or empty on linux');
  }
  const pathname = url.pathname;
  if (RegExpPrototypeExec(/%2f/i, pathname) !== null) {
    throw nodeError(TypeError, 'ERR_INVALID_FILE_URL_PATH', 'File URL path must not include encoded / characters');
  }
  return decodeURIComponent(pathname);
}

function pathToFileURL(filepath) {
  if (typeof filepath !== 'string') throw invalidArgType('path', 'of type string', filepath);
  let resolved = path.resolve(filepath);
  if (filepath[filepath.length - 1] === '/' && resolved[resolved.length - 1] !== '/') resolved += '/';
  const url = new URL('file://');
  // The pathname setter encodes the rest ('?', '#' and spaces among them) but not these.
  url.pathname = StringPrototypeReplace(resolved, /[%\\\n\r\t]/g, escapeOne);
  return url;
}

export default {
  Url,
  parse,
  format,
  URL,
  URLSearchParams,
  fileURLToPath,
  pathToFileURL,
};
export { fileURLToPath, format, parse, pathToFileURL, URL, Url, URLSearchParams };
