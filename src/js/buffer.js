// Buffer, the global and node:buffer's: feross/buffer (vendored), with two things of Node's
// patched into our copy: the 'base64url' encoding, and UTF-8 decoding by the platform's decoder,
// which replaces malformed sequences as V8 (and so Node) does.

import { primordials } from 'ext:core/mod.js';
import { TextDecoder } from 'ext:dsh/web.js';
import { require } from 'ext:dsh/vendor.js';

const {
  ReflectApply,
  StringPrototypeCharCodeAt,
  StringPrototypeReplace,
  StringPrototypeToLowerCase,
  TypedArrayPrototypeSubarray,
} = primordials;

const { Buffer, SlowBuffer, INSPECT_MAX_BYTES, kMaxLength } = require('buffer');
// V8's String::kMaxLength on 64-bit hosts, as Node reports it.
const kStringMaxLength = 536870888;

const vendoredToString = Buffer.prototype.toString;
const vendoredFrom = Buffer.from;
const vendoredByteLength = Buffer.byteLength;
const vendoredIsEncoding = Buffer.isEncoding;

const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });
const { decode } = TextDecoder.prototype;

const encodingOf = (encoding) => (encoding === undefined ? 'utf8' : StringPrototypeToLowerCase(`${encoding}`));
// base64-js already reads '-' and '_' and unpadded input, so 'base64url' decodes as 'base64'.
const decodable = (encoding) => (encodingOf(encoding) === 'base64url' ? 'base64' : encoding);

Buffer.prototype.toString = function toString(encoding, start, end) {
  const kind = encodingOf(encoding);
  if (kind !== 'utf8' && kind !== 'utf-8' && kind !== 'base64url') {
    return ReflectApply(vendoredToString, this, [encoding, start, end]);
  }
  // The range as the vendored toString clamps it.
  const length = this.length;
  let first = start === undefined || start < 0 ? 0 : start;
  if (first > length) return '';
  let last = end === undefined || end > length ? length : end;
  if (last <= 0) return '';
  first >>>= 0;
  last >>>= 0;
  if (last <= first) return '';
  if (kind === 'base64url') {
    const base64 = ReflectApply(vendoredToString, this, ['base64', first, last]);
    return StringPrototypeReplace(
      StringPrototypeReplace(StringPrototypeReplace(base64, /\+/g, '-'), /\//g, '_'),
      /=+$/,
      '',
    );
  }
  return ReflectApply(decode, utf8Decoder, [TypedArrayPrototypeSubarray(this, first, last)]);
};
Buffer.from = function from(value, encodingOrOffset, length) {
  if (typeof value === 'string') encodingOrOffset = decodable(encodingOrOffset);
  return ReflectApply(vendoredFrom, this, [value, encodingOrOffset, length]);
};
// The vendored byteLength of UTF-8 text builds an array of its every byte (768M elements for 2^28
// two-byte characters, grown and collected in steps that nothing stops); here they are counted.
function utf8Length(text) {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = StringPrototypeCharCodeAt(text, i);
    if (unit < 0x80) {
      bytes += 1;
    } else if (unit < 0x800) {
      bytes += 2;
    } else if (unit <= 0xdbff && unit >= 0xd800 && i + 1 < text.length) {
      const next = StringPrototypeCharCodeAt(text, i + 1);
      // A pair is four bytes; a lone surrogate becomes U+FFFD, three.
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else {
        bytes += 3;
      }
    } else {
      bytes += 3;
    }
  }
  return bytes;
}
Buffer.byteLength = function byteLength(value, encoding) {
  const kind = encodingOf(encoding);
  if (typeof value === 'string' && (kind === 'utf8' || kind === 'utf-8')) return utf8Length(value);
  return ReflectApply(vendoredByteLength, this, [value, decodable(encoding)]);
};
Buffer.isEncoding = function isEncoding(encoding) {
  return encodingOf(encoding) === 'base64url' || ReflectApply(vendoredIsEncoding, this, [encoding]);
};

export { Buffer, INSPECT_MAX_BYTES, kMaxLength, kStringMaxLength, SlowBuffer };
