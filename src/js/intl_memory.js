// ICU's memory behind Intl objects, counted against the run's heap cap.
//
// Each Intl object holds ICU's formatter, collator or break iterator outside the V8 heap, and V8
// counts none of it: a loop keeping `new Intl.DateTimeFormat()`s held 1.9 GB in 3 s at a 64 MB cap,
// and one making and dropping them peaked at 312 MB, since the collector ran only as the heap
// filled. Each object made here gets an ArrayBuffer standing for about its ICU size, over no memory
// of its own (`op_dsh_icu_share`), that lives exactly as long as it does: the run's buffer budget
// counts it against the cap (past which the constructor throws a RangeError), and V8's collector,
// which weighs buffers, runs as they add up. A Date formatted for a locale or with options makes a
// DateTimeFormat inside V8 and drops it; such a call makes its ArrayBuffer and drops it too.
// (Segments keep a copy of their text: polling.js.)

import { core } from 'ext:core/mod.js';

const { op_dsh_icu_share } = core.ops;
const ObjectDefineProperty = Object.defineProperty;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ReflectApply = Reflect.apply;
const ReflectConstruct = Reflect.construct;
const ReflectOwnKeys = Reflect.ownKeys;
const RangeErrorCtor = RangeError;
const WeakMapCtor = WeakMap;
const WeakMapPrototypeSet = WeakMap.prototype.set;

// ICU's memory for one object, rounded up from what each costs in resident memory here (4 000
// objects kept, less an isolate's share): a DateTimeFormat 27-35 KiB, 149 KiB in Japan's calendar
// at full length, 55 KiB more once it has formatted a range; a Segmenter 4-7 KiB; a
// RelativeTimeFormat 7 KiB; PluralRules 4-5 KiB; DisplayNames 1.5-2.6 KiB; a Collator up to 1.4 KiB;
// a NumberFormat or DurationFormat under 1 KiB. ListFormat and Locale hold less than their objects.
const ICU_BYTES = {
  DateTimeFormat: 64 << 10,
  Segmenter: 8 << 10,
  RelativeTimeFormat: 8 << 10,
  PluralRules: 8 << 10,
  DisplayNames: 4 << 10,
  Collator: 2 << 10,
  NumberFormat: 1 << 10,
  DurationFormat: 1 << 10,
};

const icuShares = new WeakMapCtor();

function icuShare(service, bytes) {
  const share = op_dsh_icu_share(bytes);
  if (share === null) throw new RangeErrorCtor(`${service}: ICU's memory for it would pass the run's heap cap`);
  return share;
}

/** `Intl[name]` in front of V8's, the same constructor to a program but for ICU's share. */
function countedConstructor(name, bytes) {
  const native = Intl[name];
  const service = `Intl.${name}`;
  const counted = function (...args) {
    const share = icuShare(service, bytes);
    const made = new.target === undefined
      ? ReflectApply(native, this, args)
      : ReflectConstruct(native, args, new.target === counted ? native : new.target);
    ReflectApply(WeakMapPrototypeSet, icuShares, [made, share]);
    return made;
  };
  for (const key of ReflectOwnKeys(native)) {
    ObjectDefineProperty(counted, key, { __proto__: null, ...ObjectGetOwnPropertyDescriptor(native, key) });
  }
  ObjectDefineProperty(native.prototype, 'constructor', {
    __proto__: null,
    ...ObjectGetOwnPropertyDescriptor(native.prototype, 'constructor'),
    value: counted,
  });
  ObjectDefineProperty(Intl, name, { __proto__: null, ...ObjectGetOwnPropertyDescriptor(Intl, name), value: counted });
}

for (const name of ReflectOwnKeys(ICU_BYTES)) {
  if (typeof Intl[name] === 'function') countedConstructor(name, ICU_BYTES[name]);
}

// With no locales and no options V8 formats through a DateTimeFormat it keeps; otherwise through
// one made for the call.
for (const key of ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString']) {
  const native = Date.prototype[key];
  const service = `Date.prototype.${key}`;
  const counted = {
    [key](...args) {
      if (args[0] !== undefined || args[1] !== undefined) icuShare(service, ICU_BYTES.DateTimeFormat);
      return ReflectApply(native, this, args);
    },
  }[key];
  ObjectDefineProperty(counted, 'length', { __proto__: null, value: native.length, configurable: true });
  ObjectDefineProperty(Date.prototype, key, { __proto__: null, ...ObjectGetOwnPropertyDescriptor(Date.prototype, key), value: counted });
}
