// The binding calls of a run, sent to the host in the order the program made them. A run may have
// 1024 calls awaiting answers, holding at most a quarter of its heap cap in argument bytes
// (src/limits/calls_in_flight.rs); a call past either bound waits here, its arguments' JSON still
// in the isolate and under the heap cap, and is sent as answers free room. Calls that wait are
// sent in order: none passes another, whatever room an answer frees.

import { core } from 'ext:core/mod.js';

const { op_dsh_binding_admit, op_dsh_binding_call } = core.ops;

const JSONStringify = JSON.stringify;
const PromiseCtor = Promise;
const PromisePrototypeThen = Promise.prototype.then;
const ReflectApply = Reflect.apply;

/** Calls waiting for room, in the order they were made: a list of objects with no prototype. */
let first = null;
let last = null;

/**
 * Counts the call as awaiting its answer, with the bytes of `counted` (its arguments), and sends
 * `json`, if there is room: its answer's promise, the host's tagged text (`V<json>`,
 * `E<json message>`); `undefined` when it must wait.
 */
const trySend = (function trySend(namespaceIndex, nameIndex, json, forced, counted) {
  let bytes;
  try {
    bytes = op_dsh_binding_admit(counted, forced);
  } catch (error) {
    // Arguments that alone pass the bound: the call's own rejection, as the host would tag it.
    return new PromiseCtor((resolve) => resolve(`E${JSONStringify(error.message)}`));
  }
  if (bytes < 0) return undefined;
  const answer = op_dsh_binding_call(namespaceIndex, nameIndex, json, bytes);
  // Before the caller's reaction, in the same turn: each answer lets the calls waiting go on.
  ReflectApply(PromisePrototypeThen, answer, [sendWaiting, sendWaiting]);
  return answer;
});

/** Sends the calls that wait, in order, while there is room. */
const sendWaiting = (function sendWaiting() {
  while (first !== null) {
    const call = first;
    const answer = trySend(call.namespaceIndex, call.nameIndex, call.json, false, call.counted);
    if (answer === undefined) return;
    first = call.next;
    if (first === null) last = null;
    call.resolve(answer);
  }
});

/**
 * Sends a binding call (`namespaceIndex`, `nameIndex`, its arguments' JSON) now, or once the calls
 * made before it are sent and there is room: resolves with the host's tagged answer. `forced`, it
 * is sent now whatever the bounds say (a durable run's last message, after `takeWaiting`). `tag`
 * is kept with a call that waits, for `takeWaiting`. `counted`, the part of `json` the bounds count
 * (a durable run's message also carries what its journal recorded), is all of it unless given.
 */
export const send = (function send(namespaceIndex, nameIndex, json, forced = false, tag = undefined, counted = json) {
  if (forced || first === null) {
    const answer = trySend(namespaceIndex, nameIndex, json, forced, counted);
    if (answer !== undefined) return answer;
  }
  const call = { __proto__: null, namespaceIndex, nameIndex, json, counted, resolve: undefined, tag, next: null };
  const promise = new PromiseCtor((resolve) => {
    call.resolve = resolve;
  });
  if (last === null) first = call;
  else last.next = call;
  last = call;
  return promise;
});

/** Whether calls wait for room. */
export const waiting = (function waiting() {
  return first !== null;
});

/** Takes every call still waiting out of the queue, never to be sent: their tags, in order. */
export const takeWaiting = (function takeWaiting() {
  const tags = { __proto__: null, length: 0 };
  for (let call = first; call !== null; call = call.next) tags[tags.length++] = call.tag;
  first = null;
  last = null;
  return tags;
});
