// Findings of the campaign that issue #23 leaves open, each with why, matched by what the program
// does and what was found. A finding that matches none is new; a host that died is never known.
// Each entry is to go when its cause is fixed.
export const KNOWN_OPEN = [
  {
    name: 'one request past the cap',
    why: 'V8 makes an array of up to 2^25 elements at its full length in one request (new Array(2 ** 24) '
      + 'is 128 MB; JSArray::kMaxFastArrayLength, a constant of V8, whatever the heap cap), and so do '
      + 'concat, slice, splice, Array.from, a spread or structuredClone of one; the near-limit hook must '
      + 'let that request through, since refusing it aborts the process: the peak can pass '
      + '2 x cap + 100 MB, most at a 16 MB cap; filling the 128 MB result, in a loop that does not '
      + 'poll, and collecting near the limit can keep the thread past 250 ms, and its isolate past 2 s '
      + 'when the loop spreads it again and again (seed 13)',
    matches: ({ program, config }, problems) => {
      const huge = program.includes('new Array(2 ** 24)')
      return problems.every((problem) => problem.startsWith('peak ')
        || (huge && (problem.includes('still running') || problem.includes('still alive'))))
        && (config.maxOldGenerationSizeMb === 16 || huge)
    },
  },
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
