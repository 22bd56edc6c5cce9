// The statistics the benches report.

/** The sample at quantile `q` (0 to 1) of `values`, by rank. */
export function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}

export const median = (values) => quantile(values, 0.5)
