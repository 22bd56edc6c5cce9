// Lists of locales, read here where V8 would read them without end.
//
// Intl's services, and every method that takes `locales` (`localeCompare`, the `toLocale*`
// methods), read a list of locales as the specification's CanonicalizeLocaleList does: its
// `length`, then every index below it, in C++ that never checks for termination.
// `Intl.getCanonicalLocales({ length: 2 ** 24 })` takes 0.26 s, so a length of 2^32 kept a run's
// thread about a minute past its run, and 2^53 - 1 would keep it for ever. A list V8 reads in
// moments (an own `length` of at most 2^16, not behind a proxy or a getter) goes to V8 as it is;
// any other is read here, step for step as V8 reads it, each tag checked by V8 on its own, and V8
// is given the tags found. The String methods' lists are bounded by their wrappers in polling.js,
// the services' by their constructors in intl_memory.js; the rest here, evaluated first, so that
// intl_memory.js's wrappers of Date's methods stand in front and the steps keep V8's order.

import { standInFront } from 'ext:dsh/source_text.js';
import { createDataProperty, hasShortLength, toLength } from 'ext:dsh/abstract_ops.js';

const ObjectCtor = Object;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ReflectApply = Reflect.apply;
const ReflectOwnKeys = Reflect.ownKeys;
const SetCtor = Set;
const SetPrototypeAdd = Set.prototype.add;
const SetPrototypeHas = Set.prototype.has;
const StringCtor = String;
const IntlGetCanonicalLocales = Intl.getCanonicalLocales;
const LocaleBaseName = ObjectGetOwnPropertyDescriptor(Intl.Locale.prototype, 'baseName').get;
const NumberPrototypeValueOf = Number.prototype.valueOf;
const BigIntPrototypeValueOf = BigInt.prototype.valueOf;
const DatePrototypeGetTime = Date.prototype.getTime;

/** The longest list V8 reads itself: 2^16 indices take it about 1 ms. */
const SHORT_LIST = 2 ** 16;

/** Whether `value` is an Intl.Locale, which stands for its own tag (no code of the program's runs). */
function isLocale(value) {
  try {
    ReflectApply(LocaleBaseName, value, []);
    return true;
  } catch {
    return false;
  }
}

/** `locales` as V8 may read it: itself, when V8 reads it in moments; otherwise the tags it holds. */
export function boundedLocales(locales) {
  // A string or a Locale is a list of one; null and undefined are V8's to refuse or ignore.
  if (locales === undefined || locales === null || typeof locales === 'string') return locales;
  const list = ObjectCtor(locales);
  return hasShortLength(list, SHORT_LIST) || isLocale(list) ? locales : tagsOf(list);
}

/** CanonicalizeLocaleList's reading of `list`, in JavaScript; V8 checks and canonicalises each tag. */
function tagsOf(list) {
  const length = toLength(list.length);
  const tags = [];
  const seen = new SetCtor();
  for (let k = 0; k < length; k++) {
    if (!(k in list)) continue;
    const value = list[k];
    if (typeof value !== 'string' && typeof value !== 'function' && (typeof value !== 'object' || value === null)) {
      // V8 refuses it in its own words, after the tags before it.
      createDataProperty(tags, tags.length, value);
      return tags;
    }
    const tag = typeof value === 'string' || isLocale(value) ? value : StringCtor(value);
    const canonical = ReflectApply(IntlGetCanonicalLocales, undefined, [tag])[0];
    if (!ReflectApply(SetPrototypeHas, seen, [canonical])) {
      ReflectApply(SetPrototypeAdd, seen, [canonical]);
      createDataProperty(tags, tags.length, canonical);
    }
  }
  return tags;
}

/** Puts in front of `target[key]` a method that bounds its argument `index`, a list of locales,
 * once `receiverCheck` (V8's check of the receiver, which comes first) has let it through. */
function boundLocalesOf(target, key, index, receiverCheck) {
  const native = target[key];
  standInFront(target, key, {
    [key](...args) {
      if (args.length > index && args[index] !== undefined) {
        if (receiverCheck !== undefined) {
          try {
            ReflectApply(receiverCheck, this, []);
          } catch {
            return ReflectApply(native, this, args);
          }
        }
        args[index] = boundedLocales(args[index]);
      }
      return ReflectApply(native, this, args);
    },
  }[key]);
}

// V8 makes a NumberFormat for every toLocaleString of a number or a BigInt (from V8 14; Node 26 too):
// 17-20 µs a call here, where formatting through one kept takes under 1 µs. With no options, and
// no locales or a tag, the formatter kept for those locales formats it: the specification defines
// the method as exactly that formatter's `format`. Kept for at most 32 tags a run, each about 1 KiB
// of ICU's memory.
const NumberFormatCtor = Intl.NumberFormat;
const NumberFormatFormat = ObjectGetOwnPropertyDescriptor(Intl.NumberFormat.prototype, 'format').get;
const MapCtor = Map;
const MapPrototypeGet = Map.prototype.get;
const MapPrototypeSet = Map.prototype.set;
const keptFormats = new MapCtor();
const MAX_KEPT_FORMATS = 32;

/** The kept `format` for `locales` (undefined or a tag), made on first use; undefined past the most kept. */
function keptFormat(locales) {
  let format = ReflectApply(MapPrototypeGet, keptFormats, [locales]);
  if (format === undefined && keptFormats.size < MAX_KEPT_FORMATS) {
    format = ReflectApply(NumberFormatFormat, new NumberFormatCtor(locales), []);
    ReflectApply(MapPrototypeSet, keptFormats, [locales, format]);
  }
  return format;
}

function keepNumberFormats(target, valueOf) {
  const wrapped = target.toLocaleString;
  standInFront(target, 'toLocaleString', {
    toLocaleString(...args) {
      const locales = args[0];
      if (args[1] === undefined && (locales === undefined || typeof locales === 'string')) {
        let value;
        try {
          value = ReflectApply(valueOf, this, []);
        } catch {
          // V8's own method refuses the receiver in its own words.
          return ReflectApply(wrapped, this, args);
        }
        const format = keptFormat(locales);
        if (format !== undefined) return format(value);
      }
      return ReflectApply(wrapped, this, args);
    },
  }.toLocaleString);
}

boundLocalesOf(Intl, 'getCanonicalLocales', 0);
for (const name of ReflectOwnKeys(Intl)) {
  const service = Intl[name];
  if (typeof service === 'function' && typeof service.supportedLocalesOf === 'function') {
    boundLocalesOf(service, 'supportedLocalesOf', 0);
  }
}
boundLocalesOf(Number.prototype, 'toLocaleString', 0, NumberPrototypeValueOf);
boundLocalesOf(BigInt.prototype, 'toLocaleString', 0, BigIntPrototypeValueOf);
keepNumberFormats(Number.prototype, NumberPrototypeValueOf);
keepNumberFormats(BigInt.prototype, BigIntPrototypeValueOf);
for (const key of ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString']) {
  boundLocalesOf(Date.prototype, key, 0, DatePrototypeGetTime);
}
