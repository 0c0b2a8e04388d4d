// Rows of the page's tables and exports: sorted, filtered by the text shown, and written as CSV.

// Sorting and filtering of table rows. column: {key, get(row) -> value}; numbers sort numerically, nulls last.
export function sortRows(rows, get, descending = false) {
  const dir = descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = get(a);
    const y = get(b);
    const xn = x === null || x === undefined || (typeof x === 'number' && !Number.isFinite(x));
    const yn = y === null || y === undefined || (typeof y === 'number' && !Number.isFinite(y));
    if (xn || yn) return xn === yn ? 0 : xn ? 1 : -1;
    if (typeof x === 'number' && typeof y === 'number') return dir * (x - y);
    return dir * String(x).localeCompare(String(y), undefined, { numeric: true });
  });
}

// Rows whose text (the values of `texts(row)`, case-insensitive) contains every word of `query`.
export function filterRows(rows, texts, query) {
  const words = String(query || '').toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return rows;
  return rows.filter((r) => {
    const hay = texts(r).map((t) => String(t ?? '').toLowerCase()).join(' ');
    return words.every((w) => hay.includes(w));
  });
}

// CSV (RFC 4180) of series: rows [run, metric, step, tokens, value], one per point; fields with a comma,
// quote or newline quoted. `series`: [{run, metric, step: [], tokens: [], value: []}].
export function seriesCsv(series) {
  const field = (v) => {
    const s = v === null || v === undefined ? '' : String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = ['run,metric,step,tokens,value'];
  for (const s of series) {
    for (let i = 0; i < s.step.length; i++) {
      lines.push([s.run, s.metric, s.step[i], s.tokens[i], s.value[i]].map(field).join(','));
    }
  }
  return `${lines.join('\n')}\n`;
}
