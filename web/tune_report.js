// The tune stage's stored report as curves of mean final loss against the tuned value, per group.
import { num } from './series.js';

// The tune stage's report (Sweep.tune_report_json, core/sweep/tune.h) as curves of mean final loss against the
// tuned value, per group: {field, groups: [{label, xs, ys, best: {x, y} | null, problem}]}. The first tuned field
// is the x axis (values of other tuned fields, if any, become part of the label). Non-finite losses (a value
// whose runs failed or diverged) are left out of the curve. The pick says whether the coordinator added its value
// (tune.extend, tune.refine).
export function tuneSeries(reportJson) {
  let report = reportJson;
  if (typeof reportJson === 'string') {
    try {
      report = JSON.parse(reportJson);
    } catch {
      return null;
    }
  }
  if (!report || !Array.isArray(report.groups) || !report.groups.length) return null;
  const field = Object.keys(report.groups[0].trials?.[0]?.values || {})[0];
  if (!field) return null;
  const keyText = (key) => Object.entries(key || {}).map(([k, v]) => `${k}=${v}`).join(' ') || 'all runs';
  const curves = new Map();
  const best = new Map();
  for (const g of report.groups) {
    (g.trials || []).forEach((t, i) => {
      const others = Object.entries(t.values || {}).filter(([k]) => k !== field).map(([k, v]) => `${k}=${v}`).join(' ');
      const label = [keyText(g.key), others].filter(Boolean).join(' ');
      if (!curves.has(label)) {
        // How sure the group's pick is (the share of resamples of its tune seeds that keep it; null: not measured).
        const share = typeof g.pick_share === 'number' ? g.pick_share : null;
        // match: the config values every run of this curve has (its group's key and the other tuned fields).
        const match = { ...(g.key || {}), ...Object.fromEntries(Object.entries(t.values || {}).filter(([k]) => k !== field)) };
        curves.set(label, { label, variant: g.key?.['scale.variant'] ?? null, points: [], tried: [], problem: g.problem || '', share, seeds: g.seeds ?? 0, match });
      }
      const x = num(t.values[field]);
      const y = num(t.mean_loss);
      if (Number.isFinite(x)) curves.get(label).tried.push(x);
      if (Number.isFinite(x) && Number.isFinite(y)) curves.get(label).points.push([x, y]);
      // origin: '' on the grid as written, 'extended' or 'refined' when the coordinator added the value.
      if (i === g.best && Number.isFinite(x) && Number.isFinite(y)) best.set(label, { x, y, origin: t.origin || '' });
    });
  }
  // tune.size_rule: one line per family, log value = intercept + slope log N (core/sweep/tune_rule.h).
  const rules = (Array.isArray(report.rules) ? report.rules : []).map((r) => ({
    label: keyText(r.family), intercept: num(r.intercept), slope: num(r.slope), slopeSe: num(r.slope_se), df: r.df ?? 0,
    scatter: Number.isFinite(num(r.residual_sd)) ? Math.exp(num(r.residual_sd)) : NaN, problem: r.problem || '',
  }));
  return {
    field,
    rules,
    groups: [...curves.values()].map((c) => {
      c.points.sort((a, b) => a[0] - b[0]);
      const pick = best.get(c.label) || null;
      // A pick at the smallest or largest value tried: the optimum may lie beyond the grid.
      const edge = !!pick && (pick.x === Math.min(...c.tried) || pick.x === Math.max(...c.tried));
      return { label: c.label, variant: c.variant, xs: c.points.map((p) => p[0]), ys: c.points.map((p) => p[1]), best: pick, problem: c.problem, edge, share: c.share, seeds: c.seeds, match: c.match };
    }),
  };
}
