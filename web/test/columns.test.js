// Unit tests of the pixel-column grid the loss charts draw many long series on (web/columns.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { onColumns, SLOTS } from '../columns.js';

// A seeded random walk, so a failure names the same data every run.
function walk(seed, n, x0, dx) {
  let s = seed;
  const rand = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
  const xs = [];
  const ys = [];
  let y = 3;
  let x = x0;
  for (let i = 0; i < n; i++) {
    x += dx * (0.5 + rand());
    y += rand() - 0.5;
    xs.push(x);
    ys.push(y);
  }
  return { xs, ys: [ys] };
}

// Per column (by the same rule as the grid: even in x or log x over all runs), the run's values there.
function byColumn(run, columns, lo, hi, t) {
  const width = (hi - lo) / columns;
  const out = new Map();
  run.xs.forEach((x, i) => {
    const c = Math.min(columns - 1, Math.floor((t(x) - lo) / width));
    if (!out.has(c)) out.set(c, []);
    out.get(c).push(run.ys[0][i]);
  });
  return out;
}

function range(runs, t) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const r of runs) for (const x of r.xs) [lo, hi] = [Math.min(lo, t(x)), Math.max(hi, t(x))];
  return [lo, hi];
}

test('runs with no more points than the grid has places come back as they are', () => {
  const runs = [walk(1, 100, 0, 1), walk(2, 100, 0, 1)];
  assert.equal(onColumns(runs, 200), runs);
});

for (const logX of [false, true]) {
  test(`many long runs share at most a column's places, keeping every column's extremes, ends and gaps (log x: ${logX})`, () => {
    const columns = 300;
    const t = logX ? Math.log10 : (x) => x;
    const runs = Array.from({ length: 40 }, (_, k) => walk(k + 7, 4000, 10 + k, 2.5));
    runs[3].ys[0][1234] = null;  // a NaN gap inside a column of many points
    const drawn = onColumns(runs, columns, logX);
    assert.equal(drawn.length, runs.length);
    const union = new Set(drawn.flatMap((r) => r.xs));
    assert.ok(union.size <= columns * 16, `${union.size} x values for ${columns} columns`);
    assert.ok(union.size < runs.length * 4000 / 4, 'far fewer x values than points');
    const [lo, hi] = range(runs, t);
    const width = (hi - lo) / columns;
    runs.forEach((run, k) => {
      const got = drawn[k];
      assert.equal(got.xs.length, got.ys[0].length);
      for (let i = 1; i < got.xs.length; i++) assert.ok(got.xs[i] > got.xs[i - 1], `run ${k}: x ascending`);
      assert.equal(got.ys[0][0], run.ys[0][0], 'first point kept');
      assert.equal(got.ys[0].at(-1), run.ys[0].at(-1), 'last point kept');
      assert.ok(Math.abs(t(got.xs[0]) - t(run.xs[0])) < width, 'moved by less than a column');
      const before = byColumn(run, columns, lo, hi, t);
      const after = byColumn(got, columns, lo, hi, t);
      assert.deepEqual([...after.keys()].sort((a, b) => a - b), [...before.keys()].sort((a, b) => a - b),
        'the same columns hold points');
      for (const [c, values] of before) {
        const kept = after.get(c);
        assert.ok(kept.length <= SLOTS, `column ${c}: ${kept.length} points`);
        const finite = (v) => v.filter((y) => y !== null);
        assert.equal(Math.min(...finite(kept)), Math.min(...finite(values)), `run ${k} column ${c}: lowest kept`);
        assert.equal(Math.max(...finite(kept)), Math.max(...finite(values)), `run ${k} column ${c}: highest kept`);
        assert.equal(kept.includes(null), values.includes(null), `run ${k} column ${c}: a gap stays a gap`);
      }
    });
  });
}

test("a band's edges are kept with its line, at the same places", () => {
  const line = walk(3, 5000, 0, 1);
  const hi = line.ys[0].map((y, i) => y + 0.1 + (i === 2500 ? 5 : 0));  // a spike only in the band's top
  const lo = line.ys[0].map((y) => y - 0.1);
  const [got] = onColumns([{ xs: line.xs, ys: [line.ys[0], hi, lo] }], 100);
  assert.equal(got.ys.length, 3);
  assert.equal(got.ys[1].length, got.xs.length);
  assert.equal(got.ys[2].length, got.xs.length);
  assert.equal(Math.max(...got.ys[1]), Math.max(...hi), "the band's spike survives");
  assert.equal(Math.min(...got.ys[2]), Math.min(...lo));
});
