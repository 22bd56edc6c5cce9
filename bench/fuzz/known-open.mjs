// Findings of the campaign that issue #23 leaves open, each with why, matched by what the program
// does and what was found. A finding that matches none is new; a host that died is never known.
// Each entry is to go when its cause is fixed.
export const KNOWN_OPEN = [
  {
    name: 'collections near the heap cap when the run ends',
    why: 'a program that keeps a heap cap\'s worth of small objects alive (2M key strings: a loop over a '
      + 'long string\'s keys, or a result of 2M keys, whose listing V8 makes in one step) spends its time '
      + 'in full collections of 26-100 ms each; an allocation that fails as its run ends still gets '
      + 'V8\'s sequence to its end, a full collection and then at least two last-resort ones, none of '
      + 'which can stop: measured with --trace-gc, 2-4 collections and 230-340 ms past the ending at a '
      + '64 MB cap (seed 14), none at 512 MB; one listing of 2^20 or more entries kept while the run '
      + 'goes on is enough (seed 18: the listing of a 2M-character string before a Blob of it, '
      + 'Object.fromEntries of the entries of a 2^20-element typed array, 1 run in 3 to 4)',
    matches: ({ program }, problems) => /Object\.(keys|values|entries)\(v\)|return Object\.assign\(\{\}, v\)/.test(program)
      && problems.every((problem) => problem.includes('still running')),
  },
]

/** The name of the known open finding that `fuzzCase` shows with `problems`, if any. */
export function knownOpen(fuzzCase, problems) {
  if (problems.some((problem) => problem.startsWith('the host died'))) return undefined
  return KNOWN_OPEN.find((known) => known.matches(fuzzCase, problems))?.name
}
