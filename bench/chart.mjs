// A small SVG bar chart: how many times faster (or slower) ours is than the reference, per workload.
export function drawChart(results, machine) {
  const rows = results.filter((row) => row.ratio)
  const width = 760
  const rowHeight = 34
  const left = 330
  const height = 70 + rows.length * rowHeight
  const maxLog = Math.max(1, ...rows.map((row) => Math.abs(Math.log10(1 / row.ratio))))
  const scale = (width - left - 90) / maxLog
  const bars = rows.map((row, index) => {
    const speedup = 1 / row.ratio
    const length = Math.max(2, Math.abs(Math.log10(speedup)) * scale)
    const y = 50 + index * rowHeight
    const color = speedup >= 1 ? '#2f7d4f' : '#b0413e'
    const label = speedup >= 1 ? `${speedup.toFixed(1)}x faster` : `${(1 / speedup).toFixed(2)}x slower`
    return `<text x="${left - 10}" y="${y + 17}" text-anchor="end">${row.name}</text>` +
      `<rect x="${left}" y="${y + 4}" width="${length.toFixed(1)}" height="18" fill="${color}"/>` +
      `<text x="${left + length + 6}" y="${y + 17}">${label}</text>`
  }).join('\n')
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="13">
<rect width="100%" height="100%" fill="white"/>
<text x="10" y="24" font-size="15" font-weight="bold">dsh-code-runtime-v8 vs worker-thread backend (median, log scale)</text>
<text x="10" y="42" fill="#555">${machine.node}, ${machine.cpus} cores, ${machine.date.slice(0, 10)}</text>
${bars}
</svg>
`
}
