// node:buffer: the global Buffer's module, as Node has it.

import { atob, Blob, btoa } from 'ext:dsh/web.js';
import { Buffer, INSPECT_MAX_BYTES, kMaxLength, kStringMaxLength, SlowBuffer } from 'ext:dsh/buffer.js';

const constants = { MAX_LENGTH: kMaxLength, MAX_STRING_LENGTH: kStringMaxLength };

export default {
  Buffer,
  SlowBuffer,
  INSPECT_MAX_BYTES,
  kMaxLength,
  kStringMaxLength,
  constants,
  Blob,
  atob,
  btoa,
};
export { atob, Blob, btoa, Buffer, constants, INSPECT_MAX_BYTES, kMaxLength, kStringMaxLength, SlowBuffer };
