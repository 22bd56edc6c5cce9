// Findings of the campaign that issue #23 leaves open, each with why, matched by what the program
// does and what was found. A finding that matches none is new; a host that died is never known.
// Each entry is to go when its cause is fixed.
export const KNOWN_OPEN = [
  {
    name: 'one request past a 16 MB cap',
    why: 'an array or string that grows in one request (concat, slice, splice or Array.from of a '
      + '2^24-element array, a 2^24-character pad) asks V8 for the whole result at once, and the '
      + 'near-limit hook must let that one request through: at a 16 MB cap the peak can pass '
      + '2 x cap + 100 MB',
    matches: ({ config }, problems) => config.maxOldGenerationSizeMb === 16
      && problems.every((problem) => problem.startsWith('peak ')),
  },
  {
    name: 'flat and entries over huge array-likes',
    why: 'Array.prototype.flat walks every index of an array-like up to its length, and Object.entries '
      + 'of a typed array lists every element, in loops V8 never interrupts',
    matches: ({ program }) => program.includes('Array.prototype.flat.call')
      || (program.includes('Uint8Array(2 ** 24)') && program.includes('Object.entries')),
  },
]

/** The name of the known open finding that `fuzzCase` shows with `problems`, if any. */
export function knownOpen(fuzzCase, problems) {
  if (problems.some((problem) => problem.startsWith('the host died'))) return undefined
  return KNOWN_OPEN.find((known) => known.matches(fuzzCase, problems))?.name
}
