// Many series on one chart, drawn on a shared grid of x positions: what keeps a chart of 100 long runs fast.
//
// uPlot draws from one table joined on x. Downsampled series keep different steps (each bucket's lowest and
// highest point fall at another step in every run), so 100 series of 4,000 points join into ~400,000 x
// values, each series a column of mostly gaps that every redraw walks (docs/perf.md). A chart has only so
// many pixels, though. Here each series' points are placed in the chart's pixel columns: per column at most
// SLOTS points in their own order (its first, lowest, highest and last, and its first gap, the M4 rule, so no
// spike and no gap vanishes), at x positions every series shares. The joined table is then at most
// columns x PLACES long whatever the number of series, and the drawn image moves by less than a column.
// Only the drawing uses the grid: readouts and exports read each series' own points.

// At most this many points per series and pixel column (M4 and a gap), and places per column on the grid
// (the union of a line's and its band's edges: 3 x 5, rounded up).
export const SLOTS = 5;
const PLACES = 16;

// runs: [{xs, ys: [ys1, ...]}] (xs ascending; one or more value columns over the same xs, e.g. a line and its
// band's edges; values may be null for a gap); columns: the chart's width in pixels; logX: a log x axis
// (columns even in log x). The runs as they are when they hold no more points than the grid has places for;
// otherwise the same runs on the grid, in the same shape. Per column a run keeps, for each of its value
// columns, the first, last, lowest and highest point and its first gap, and the union of those for all of them.
export function onColumns(runs, columns, logX = false) {
  let points = 0;
  let lo = Infinity;
  let hi = -Infinity;
  const t = logX ? Math.log10 : (x) => x;
  for (const { xs } of runs) {
    points += xs.length;
    for (const x of xs) {
      const v = t(x);
      if (Number.isFinite(v)) {
        if (v < lo) lo = v;
        if (v > hi) hi = v;
      }
    }
  }
  const cols = Math.max(1, Math.floor(columns));
  if (points <= cols * SLOTS || !(hi > lo)) return runs;
  const width = (hi - lo) / cols;
  const column = (x) => Math.min(cols - 1, Math.max(0, Math.floor((t(x) - lo) / width)));
  // The same column and place give the same number in every run, so join() lines them up.
  const place = (c, slot) => {
    const v = lo + (c + (slot + 0.5) / PLACES) * width;
    return logX ? 10 ** v : v;
  };
  return runs.map(({ xs, ys }) => {
    const outX = [];
    const outY = ys.map(() => []);
    let i = 0;
    while (i < xs.length) {
      const c = column(xs[i]);
      let end = i + 1;
      while (end < xs.length && column(xs[end]) === c) end++;
      if (end - i <= SLOTS) {  // the common case (a downsampled bucket per column): every point, no allocation
        for (let k = i; k < end; k++) {
          outX.push(place(c, k - i));
          for (let j = 0; j < ys.length; j++) outY[j].push(ys[j][k]);
        }
      } else {
        const keep = ys.length === 1 ? kept(ys[0], i, end)
          : [...new Set(ys.flatMap((col) => kept(col, i, end)))].sort((a, b) => a - b);
        keep.forEach((k, slot) => {
          outX.push(place(c, Math.min(slot, PLACES - 1)));
          ys.forEach((col, j) => outY[j].push(col[k]));
        });
      }
      i = end;
    }
    return { xs: outX, ys: outY };
  });
}

// Indices in [from, end) (more than SLOTS of them) to keep, ascending: the first, the last, the lowest and the
// highest value, and the first gap (null or NaN).
function kept(ys, from, end) {
  let low = -1;
  let high = -1;
  let gap = -1;
  for (let k = from; k < end; k++) {
    const y = ys[k];
    if (y === null || y === undefined || Number.isNaN(y)) {
      if (gap < 0) gap = k;
      continue;
    }
    if (low < 0 || y < ys[low]) low = k;
    if (high < 0 || y > ys[high]) high = k;
  }
  return [...new Set([from, end - 1, low, high, gap].filter((k) => k >= 0))].sort((a, b) => a - b);
}
