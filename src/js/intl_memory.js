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
import { presentAsBuiltin, standInFront } from 'ext:dsh/source_text.js';
import { boundedLocales } from 'ext:dsh/locale_list.js';
import { isProxy } from 'ext:dsh/abstract_ops.js';

const { op_dsh_icu_share } = core.ops;
const ObjectDefineProperty = Object.defineProperty;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ReflectApply = Reflect.apply;
const ReflectConstruct = Reflect.construct;
const ReflectOwnKeys = Reflect.ownKeys;
const RangeErrorCtor = RangeError;
const WeakMapCtor = WeakMap;
const WeakMapPrototypeHas = WeakMap.prototype.has;
const WeakMapPrototypeSet = WeakMap.prototype.set;
const ArrayPrototypeIncludes = Array.prototype.includes;
const StringPrototypeIncludes = String.prototype.includes;
const StringPrototypeToLowerCase = String.prototype.toLowerCase;
const DateTimeFormat = Intl.DateTimeFormat;

// ICU's memory for one object, rounded up from what each costs in resident memory here (2 000-4 000
// objects kept, less an isolate's share): a DateTimeFormat 27-35 KiB in most calendars and 55 KiB
// more once it has formatted a range, but 165 KiB in the Japanese and Chinese calendars and up to
// 160 KiB more for ranges; a Segmenter 4-7 KiB; a RelativeTimeFormat 7 KiB; PluralRules 4-5 KiB;
// DisplayNames 1.5-2.6 KiB; a Collator up to 1.4 KiB; a NumberFormat or DurationFormat under 1 KiB.
// ListFormat and Locale hold less than their objects: a ListFormat is made here only for its list of
// locales (locale_list.js), as every service is.
const ICU_BYTES = {
  DateTimeFormat: 64 << 10,
  Segmenter: 8 << 10,
  RelativeTimeFormat: 8 << 10,
  PluralRules: 8 << 10,
  DisplayNames: 4 << 10,
  Collator: 2 << 10,
  NumberFormat: 1 << 10,
  DurationFormat: 1 << 10,
  ListFormat: 0,
};
const LARGE_CALENDARS = ['japanese', 'chinese', 'dangi'];
const LARGE_CALENDAR_DATE_TIME_FORMAT = 192 << 10;

const icuShares = new WeakMapCtor();
// A DateTimeFormat's shares beyond its first: its calendar's, then its ranges'.
const calendarShares = new WeakMapCtor();
const rangeShares = new WeakMapCtor();

function icuShare(service, bytes) {
  const share = op_dsh_icu_share(bytes);
  if (share === null) throw new RangeErrorCtor(`${service}: ICU's memory for it would pass the run's heap cap`);
  return share;
}

const DateTimeFormatPrototype = Intl.DateTimeFormat.prototype;
const resolvedOptions = DateTimeFormatPrototype.resolvedOptions;

/** What a DateTimeFormat made here counts for. */
function dateTimeFormatBytes(format) {
  return ReflectApply(WeakMapPrototypeHas, calendarShares, [format]) ? LARGE_CALENDAR_DATE_TIME_FORMAT : ICU_BYTES.DateTimeFormat;
}

/** A DateTimeFormat just made: the rest of its share, if its calendar is a large one. */
function countCalendar(format) {
  const { calendar } = ReflectApply(resolvedOptions, format, []);
  if (ReflectApply(ArrayPrototypeIncludes, LARGE_CALENDARS, [calendar])) {
    const rest = icuShare('Intl.DateTimeFormat', LARGE_CALENDAR_DATE_TIME_FORMAT - ICU_BYTES.DateTimeFormat);
    ReflectApply(WeakMapPrototypeSet, calendarShares, [format, rest]);
  }
}

/** `Intl[name]` in front of V8's, the same constructor to a program but for ICU's share and a
 * bounded list of locales. */
function countedConstructor(name, bytes) {
  const native = Intl[name];
  const service = `Intl.${name}`;
  const counted = function (...args) {
    const share = bytes > 0 ? icuShare(service, bytes) : undefined;
    if (args.length > 0) args[0] = boundedLocales(args[0]);
    const made = new.target === undefined
      ? ReflectApply(native, this, args)
      : ReflectConstruct(native, args, new.target === counted ? native : new.target);
    if (share !== undefined) ReflectApply(WeakMapPrototypeSet, icuShares, [made, share]);
    if (native === DateTimeFormat) countCalendar(made);
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
  ObjectDefineProperty(Intl, name, { __proto__: null, ...ObjectGetOwnPropertyDescriptor(Intl, name), value: presentAsBuiltin(counted, native) });
}

// V8's own break iterator, which Node does not expose: its `adoptText` kept a copy of its text in ICU
// (200 of them over 2^20 characters held 432 MB at a 64 MB cap).
delete Intl.v8BreakIterator;

for (const name of ReflectOwnKeys(ICU_BYTES)) {
  if (typeof Intl[name] === 'function') countedConstructor(name, ICU_BYTES[name]);
}

// A range formatter, made by a DateTimeFormat's first range and kept with it.
for (const key of ['formatRange', 'formatRangeToParts']) {
  const native = DateTimeFormatPrototype[key];
  const counted = {
    [key](...args) {
      const first = ReflectApply(WeakMapPrototypeHas, icuShares, [this]) && !ReflectApply(WeakMapPrototypeHas, rangeShares, [this]);
      const share = first ? icuShare(`Intl.DateTimeFormat.prototype.${key}`, dateTimeFormatBytes(this)) : undefined;
      const formatted = ReflectApply(native, this, args);
      if (first) ReflectApply(WeakMapPrototypeSet, rangeShares, [this, share]);
      return formatted;
    },
  }[key];
  standInFront(DateTimeFormatPrototype, key, counted);
}

/** Whether a calendar argument names one of the large calendars (a long one is taken to). */
function namesLargeCalendar(text, prefix) {
  if (typeof text !== 'string') return false;
  if (text.length > 256) return true;
  const lower = ReflectApply(StringPrototypeToLowerCase, text, []);
  for (let i = 0; i < LARGE_CALENDARS.length; i++) {
    if (ReflectApply(StringPrototypeIncludes, lower, [prefix + LARGE_CALENDARS[i]])) return true;
  }
  return false;
}

/** Whether a Date's locales or options name a large calendar: the options only where reading them
 * is not the program's to see (an own data property of an object that is not a proxy). */
function asksLargeCalendar(locales, options) {
  if (namesLargeCalendar(locales, '-ca-')) return true;
  if (typeof options !== 'object' || options === null || isProxy(options)) return false;
  const calendar = ObjectGetOwnPropertyDescriptor(options, 'calendar');
  return calendar !== undefined && namesLargeCalendar(calendar.value, '');
}

// With no locales and no options V8 formats through a DateTimeFormat it keeps; otherwise through
// one made for the call. A calendar the options inherit, or name through a getter or a proxy, is
// not read here (reading it is the program's to see): such a call counts for 64 KiB of its 165.
for (const key of ['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString']) {
  const native = Date.prototype[key];
  const service = `Date.prototype.${key}`;
  const counted = {
    [key](...args) {
      if (args[0] !== undefined || args[1] !== undefined) {
        icuShare(service, asksLargeCalendar(args[0], args[1]) ? LARGE_CALENDAR_DATE_TIME_FORMAT : ICU_BYTES.DateTimeFormat);
      }
      return ReflectApply(native, this, args);
    },
  }[key];
  standInFront(Date.prototype, key, counted);
}
