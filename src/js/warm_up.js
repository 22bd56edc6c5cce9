// What most programs touch of the world, touched once while the snapshot is made: V8 compiles a
// function on its first call, and what it compiled here is in the snapshot, so a run that uses it
// does not compile it (a world function's first call costs 20-150 us). Only calls that leave
// nothing behind: no timer, no clock, no random numbers, no state a program could observe.

import { core } from 'ext:core/mod.js';
import { Buffer } from 'ext:dsh/buffer.js';
import { AbortController, TextDecoder, TextEncoder, URL } from 'ext:dsh/web.js';

if (core.ops.op_dsh_snapshotting()) {
  // The guarded array methods share one entry; long_strings.js's split and JSON's entry are polled.
  [0].map((x) => x);
  'a,b'.split(',');
  JSON.stringify({ a: [1] });

  Buffer.from(Buffer.from('warm').toString('base64'), 'base64').toString('hex');
  Buffer.byteLength('warm');

  new TextDecoder().decode(new TextEncoder().encode('warm'));
  new URL('https://example.com/a?b=1').searchParams.get('b');

  const controller = new AbortController();
  controller.signal.addEventListener('abort', () => {});
  controller.abort();
}
