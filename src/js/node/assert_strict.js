// node:assert/strict: assert in strict mode, where equal is strictEqual and deepEqual is
// deepStrictEqual.

import assert from 'node:assert';

const { strict } = assert;

export default strict;
export const {
  AssertionError,
  deepEqual,
  deepStrictEqual,
  doesNotMatch,
  doesNotReject,
  doesNotThrow,
  equal,
  fail,
  ifError,
  match,
  notDeepEqual,
  notDeepStrictEqual,
  notEqual,
  notStrictEqual,
  ok,
  rejects,
  strictEqual,
  throws,
} = strict;
export { strict };
