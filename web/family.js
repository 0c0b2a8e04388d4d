// A WSD run and its cooldown branches as one family in the metric charts (docs/branches.md). A branch is a job of
// its own whose parent_id is its run's job and whose curve holds only the steps after branch_step: the steps up to
// there are its run's, bit for bit. So a branch is drawn in its run's hue, fainter, from the point where it
// leaves its run's line (its lead), and hiding or soloing a run takes its branches with it. Pure helpers (no
// DOM), unit-tested in test/family.test.js.
import { int } from './series.js';
import { si } from './format.js';

// The run a job branches from and the run's step it starts after, or null for a job that is no branch. Proto
// JSON gives int64 fields as strings and an unset parent as '' (or leaves it out).
export function branchOf(job) {
  const parent = job?.parent_id;
  if (parent === undefined || parent === null || parent === '' || parent === '0') return null;
  return { parentId: String(parent), step: int(job.branch_step) };
}

// Job id -> the ids of its branches, among `jobs`.
export function branchesByRun(jobs) {
  const out = new Map();
  for (const job of jobs) {
    const b = branchOf(job);
    if (!b) continue;
    if (!out.has(b.parentId)) out.set(b.parentId, []);
    out.get(b.parentId).push(String(job.id));
  }
  return out;
}

// The jobs a click on job `id`'s switch hides or shows: a run with all its branches (a branch alone would be
// a curve with no run to leave), a branch by itself.
export function familyIds(jobs, id) {
  const key = String(id);
  const job = jobs.find((j) => String(j.id) === key);
  if (!job || branchOf(job)) return [key];
  return [key, ...(branchesByRun(jobs).get(key) || [])];
}

// The jobs shown when job `id` is shown alone: a run's family; a branch with its run, so that the point it leaves
// from stays on the chart.
export function soloIds(jobs, id) {
  const key = String(id);
  const job = jobs.find((j) => String(j.id) === key);
  const b = branchOf(job);
  return b ? [b.parentId, key] : familyIds(jobs, key);
}

// A curve's name when it is a branch: its run's name, then where it leaves it and, when known, the budget it
// decays to. "tiny-2x16/baseline/adamw/wsd/s0 → branch at step 28, D=71.7k"
export function branchLabel(runName, step, tokens = NaN) {
  return `${runName} → branch at step ${step}${tokens > 0 ? `, D=${si(tokens)}` : ''}`;
}

// The fainter variant of a run's colour that its branches are drawn in: the same hue at 60% opacity (8-digit
// hex, which canvas and CSS read), so it is lighter on a light page and darker on a dark one alike.
export function branchColour(colour) {
  return /^#[0-9a-f]{6}$/i.test(colour) ? `${colour}99` : colour;
}

// The value of the polyline (xs ascending, ys) at x: the point itself where it has one at x, else linear
// between its neighbours; null outside its range or where a neighbour is a gap (null, NaN).
export function interpolate(xs, ys, x) {
  const n = xs.length;
  if (!n || !(x >= xs[0] && x <= xs[n - 1])) return null;
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] <= x) lo = mid;
    else hi = mid;
  }
  const ok = (y) => y !== null && y !== undefined && Number.isFinite(y);
  if (xs[lo] === x) return ok(ys[lo]) ? ys[lo] : null;
  if (xs[hi] === x) return ok(ys[hi]) ? ys[hi] : null;
  if (!ok(ys[lo]) || !ok(ys[hi])) return null;
  return ys[lo] + ((ys[hi] - ys[lo]) * (x - xs[lo])) / (xs[hi] - xs[lo]);
}

// Where a branch leaves its run on a chart: the point of the run's line as drawn at the branch point. `run`: the
// run's points as drawn, {base, xs, ys}: base the column x is read from (steps, or tokens), ascending; xs in the
// chart's units (steps, tokens, FLOPs or training time); ys as drawn (smoothed when the chart smooths). `at`: the
// branch point in the base column (its step, or the tokens at that step). The x is the run's x there; the y is
// read off the segment the chart draws through it, straight on the chart's scales (in log x or log y where
// those are log), so that the lead lies on the run's line. Null where the run's points do not reach `at` on
// both sides (no extrapolation).
export function leadPoint(run, at, { logX = false, logY = false } = {}) {
  if (!run?.base?.length) return null;
  const x = interpolate(run.base, run.xs, at);
  if (x === null) return null;
  const tx = logX ? (v) => Math.log(v) : (v) => v;
  const ty = logY ? (v) => (v > 0 ? Math.log(v) : NaN) : (v) => v;
  const y = interpolate(run.xs.map(tx), run.ys.map((v) => (v === null || v === undefined ? null : ty(v))), tx(x));
  if (y === null) return null;
  return { x, y: logY ? Math.exp(y) : y };
}
