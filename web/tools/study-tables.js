// The tables a run's page is written with, from a `gammalab report`'s data: differences of means and paired
// differences with their s.e. and whether each is resolved, the tune stage's picks, a one-size table of every
// variant against a reference, and the page's generated blocks. Shared by web/tools/study-results.js (`make
// study`) and web/tools/arms-results.js (`make arms`), so that both pages follow one rule.
import { readFileSync, writeFileSync } from 'node:fs';
import { meanSe } from '../seeds.js';
import { studyTable } from '../series.js';

// A difference is resolved when it lies outside its two-sided 95% interval on Student's t for the degrees of
// freedom of its s.e.: a few seeds give a s.e. of few degrees of freedom (2 for 3 pairs: 4.30 s.e., not 2).
const T_975 = [NaN, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228];
const tQuantile = (df) => (!(df >= 1) ? Infinity : df < T_975.length ? T_975[Math.floor(df)] : 1.96 + 2.4 / df);
const resolvedAt = (mean, se, df) => Number.isFinite(se) && se > 0 && Math.abs(mean) > tQuantile(df) * se;
export const pairedResolved = (mean, se, pairs) => resolvedAt(mean, se, pairs - 1);

export const f4 = (x) => (Number.isFinite(x) ? x.toFixed(4) : '–');
export const signed = (x, d = 4) => (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(d)}` : '–');
export const pm = (c) => (c && c.n ? `${f4(c.mean)} ± ${Number.isFinite(c.se) ? c.se.toFixed(4) : '–'} (${c.n})` : '–');

// The difference of two cells (mean ± s.e.) with the s.e. of the difference, and whether it is resolved.
function difference(a, b) {
  const delta = a.mean - b.mean;
  const se = Math.sqrt((a.se || 0) ** 2 + (b.se || 0) ** 2);
  // Welch–Satterthwaite degrees of freedom of the two s.e. in quadrature (floored: the interval errs wide).
  const df = se ** 4 / ((a.se || 0) ** 4 / (a.n - 1) + (b.se || 0) ** 4 / (b.n - 1));
  return { delta, se, resolved: resolvedAt(delta, se, df) };
}
export const diffText = (d) => `${signed(d.delta)} ± ${d.se.toFixed(4)}${d.resolved ? '' : ' (within noise)'}`;

// The paired difference of two groups' runs at one size: the mean over seeds both ran of the variant's loss
// minus the reference's, ± its s.e. (docs/scaling-laws.md). Null when fewer than two seeds pair.
function pairedDifference(variantRuns, referenceRuns, seedOf) {
  const reference = new Map(referenceRuns.map((r) => [seedOf.get(r.id), r.loss]));
  const gaps = variantRuns.filter((r) => reference.has(seedOf.get(r.id))).map((r) => r.loss - reference.get(seedOf.get(r.id)));
  const m = meanSe(gaps);
  if (m.n < 2) return null;
  return { delta: m.mean, se: m.se, pairs: m.n, resolved: pairedResolved(m.mean, m.se, m.n) };
}

export const config = (job) => JSON.parse(job.config_json);

// A tuned value as `gammalab tune` prints it: six significant digits (a grid of 1.0 / d_model gives 1/24).
const value = (x) => (typeof x === 'number' ? String(Number(x.toPrecision(6))) : String(x));

// Per group of the tune report: its key, the value picked and whether it sits on an edge of the grid.
function tunePicks(sweep) {
  const report = sweep.tune_report_json ? JSON.parse(sweep.tune_report_json) : null;
  return (report?.groups || []).map((g) => {
    const trials = g.trials || [];
    const field = Object.keys(trials[0]?.values || {})[0];
    const best = trials[g.best];
    return {
      key: Object.values(g.key || {}).join(' '), field, value: best ? value(best.values[field]) : undefined, problem: g.problem || '',
      edge: g.best === 0 || g.best === trials.length - 1,
      losses: trials.map((t) => `${value(t.values[field])}: ${f4(t.mean_loss)}`).join(', '),
    };
  });
}

export function tuneSection(title, sweep, carried) {
  const picks = tunePicks(sweep);
  const lines = [`**${title}** (${picks[0]?.field ?? 'optim.lr'}; mean final loss per value tried${carried ? `; ${carried}` : ''}):`, '',
    '| group | pick | at an edge of the grid | value: mean final loss |', '|---|---|---|---|'];
  for (const p of picks) lines.push(`| ${p.key} | ${p.value ?? `none: ${p.problem}`} | ${p.edge ? 'yes' : 'no'} | ${p.losses} |`);
  return lines.join('\n');
}

// The rows of a one-size table (every variant of `runs`: its final loss, and its difference to `reference`,
// paired by seed and unpaired), pushed to `out`; returns each variant's difference (paired where seeds pair).
export function oneSizeRows(data, runs, reference, out) {
  const row = studyTable(runs, 'loss').sizes[0];
  const ref = row?.cells.get(reference);
  const diffs = new Map();
  const seedOf = new Map(data.jobs.map((j) => [j.id, config(j).seed]));
  const runsOf = (v) => runs.filter((r) => r.variant === v);
  for (const v of studyTable(runs, 'loss').variants) {
    const c = row.cells.get(v);
    const unpaired = ref && v !== reference ? difference(c, ref) : null;
    const paired = unpaired ? pairedDifference(runsOf(v), runsOf(reference), seedOf) : null;
    if (unpaired) diffs.set(v, paired ?? unpaired);
    out.push(`| ${v} | ${pm(c)} | ${paired ? `${diffText(paired)} (${paired.pairs})` : ''} | ${unpaired ? diffText(unpaired) : ''} |`);
  }
  return diffs;
}

// Replaces the text between `begin` and `end` (each once) in the page.
export function writeBlock(pageFile, begin, end, lines) {
  const page = readFileSync(pageFile, 'utf8');
  const at = page.indexOf(begin);
  const stop = page.indexOf(end);
  if (at < 0 || stop < at || page.indexOf(begin, at + 1) >= 0) throw new Error(`${pageFile}: expected the markers ${begin.slice(0, 20)}… once each`);
  writeFileSync(pageFile, page.slice(0, at) + lines.join('\n') + page.slice(stop + end.length));
}
