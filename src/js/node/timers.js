// node:timers: the world's timers, which identify a timer by a number.

import { clearImmediate, clearInterval, clearTimeout, setImmediate, setInterval, setTimeout } from 'ext:dsh/world.js';
import promises from 'node:timers/promises';

export default { setTimeout, clearTimeout, setImmediate, clearImmediate, setInterval, clearInterval, promises };
export { clearImmediate, clearInterval, clearTimeout, promises, setImmediate, setInterval, setTimeout };
