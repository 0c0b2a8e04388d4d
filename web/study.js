// The study's result views, shared by the dashboard (app.js) and the static report (report.js, written by
// `gammalab report`): the final-loss table per size and variant with the stored compute multipliers, the
// scaling plot's points and fitted curves, the fit tables and the tune stage's picks. They take the data
// (runs, fit reports, tune series) and the elements to fill; all text goes in through dom.js.
import {
  scalingPoints, fitCurve, logSpace, median, si, count, studyTable, multipliers, sortGroups, groupColours, num,
  studyRuns, fitBand, storedBand, pairedComparisons,
} from './series.js';
import { h, fill } from './dom.js';

// A loss (or other) number with fixed digits, '–' when not finite.
export function fmt(x, digits = 4) {
  return Number.isFinite(x) ? x.toFixed(digits) : '–';
}

// The study table of the main-stage runs (mean ± s.e. (n) per size and variant, difference to the baseline) into `table` (a <table>
// with a thead and a tbody), `empty` shown when no run has a final loss, and the multipliers into `multipliersEl`.
export function renderStudyTable({ table, empty, multipliersEl }, runs, fits, lossKey) {
  const { sizes, variants } = studyTable(studyRuns(runs), lossKey, fits[0]?.baseline || 'baseline');
  empty.hidden = sizes.length > 0;
  table.hidden = !sizes.length;
  fill(table.tHead, h('tr', {}, h('th', {}, 'model size'), h('th', { class: 'num' }, 'N'),
    variants.map((v) => h('th', { class: 'num', dataset: { variant: v } }, v))));
  fill(table.tBodies[0], sizes.map((row) => h('tr', { dataset: { preset: row.preset } },
    h('th', {}, row.preset), h('td', { class: 'num' }, count(row.params)),
    variants.map((v) => {
      const c = row.cells.get(v);
      if (!c) return h('td', { class: 'num' }, '–');
      const better = c.delta < 0;
      return h('td', { class: 'num', dataset: { variant: v, mean: c.mean, se: Number.isFinite(c.se) ? c.se : '', n: c.n, delta: Number.isFinite(c.delta) ? c.delta : '' } },
        h('span', { class: 'mean' }, fmt(c.mean)), Number.isFinite(c.se) ? h('span', { class: 'se' }, ` ± ${fmt(c.se)}`) : null,
        h('span', { class: 'n' }, ` (${c.n})`),
        Number.isFinite(c.delta) ? h('div', { class: `delta ${better ? 'better' : 'worse'}` }, `${c.delta > 0 ? '+' : ''}${fmt(c.delta)} vs baseline`) : null);
    }))));
  const ms = multipliers(fits);
  const law = ms.length ? h('div', { class: 'law-heading' }, 'From the fitted law (after the runs themselves, above):') : null;
  fill(multipliersEl, pairedComparisons(fits).map(comparisonView), law, ms.map((m) => h('div', { class: 'multiplier', dataset: { variant: m.variant, value: m.value, lo: m.lo, hi: m.hi } },
    h('span', { class: 'big' }, `${m.variant}: ×${m.value.toPrecision(4)}`),
    ` compute of ${m.baseline}`,
    h('span', { class: 'interval' }, ` [${Number.isFinite(m.lo) ? m.lo.toPrecision(3) : m.lo}, ${Number.isFinite(m.hi) ? m.hi.toPrecision(3) : 'unbounded'}]`),
    m.range.length === 2 ? h('span', { class: 'note' }, ` for C from ${si(m.range[0])} to ${si(m.range[1])} FLOPs (law ${m.law})`) : null,
    m.profile ? h('span', { class: 'note profile' }, m.profile.open
      ? `; the fit cannot tell multipliers from ${fmt(m.profile.lo, 2)} to ${fmt(m.profile.hi, 2)} apart, and beyond: the law does not identify it`
      : `; the fit's objective allows ${fmt(m.profile.lo, 2)} to ${fmt(m.profile.hi, 2)}`) : null)));
}

// One law-free comparison (series.js pairedComparisons): the sentence the CLI's verdict starts with, then the paired
// gap per size. What the runs say before any law, so it comes first.
function comparisonView(c) {
  const sentence = !c.identified
    ? [h('span', { class: 'big' }, `${c.variant} vs ${c.reference}`), ': no local multiplier (the reference\'s sizes never reach its loss)']
    : [h('span', { class: 'big' }, `${c.variant} vs ${c.reference}: ${fmt(c.factor, 2)}× ${c.better ? 'less' : 'more'} compute`),
      c.interval ? h('span', { class: 'interval' }, ` [${fmt(c.interval[0], 2)}, ${fmt(c.interval[1], 2)}]`) : ' (no interval: add seeds)',
      h('span', { class: 'note' }, ` local multiplier, no law; ${c.paired ? 'paired bootstrap over seeds' : 'pairs incomplete: bootstrap over each group\'s seeds'}; ${c.sizesInside} size${c.sizesInside === 1 ? '' : 's'} inside the data${c.jackknife ? `; ${fmt(c.jackknife[0], 2)}–${fmt(c.jackknife[1], 2)} leaving one size out` : ''}`),
      c.includesOne ? h('span', { class: 'note one' }, ' — the interval includes 1×: no clear difference') : null];
  return h('div', { class: 'comparison', dataset: { variant: c.variant, reference: c.reference, value: c.factor, better: c.better } },
    h('div', {}, sentence),
    h('table', { class: 'gaps' },
      h('thead', {}, h('tr', {}, h('th', { class: 'num' }, 'N'), h('th', { class: 'num' }, 'pairs'),
        h('th', { class: 'num' }, `${c.variant} − ${c.reference}`), h('th', { class: 'num' }, 'unpaired s.e.'), h('th', { class: 'num' }, 'm_local'))),
      h('tbody', {}, c.sizes.map((z) => h('tr', { dataset: { params: z.params, gap: z.gap, se: Number.isFinite(z.se) ? z.se : '' } },
        h('td', { class: 'num' }, count(z.params)),
        h('td', { class: 'num' }, `${z.pairs}${z.complete ? '' : ' (incomplete)'}`),
        h('td', { class: `num ${z.gap < 0 ? 'better' : 'worse'}` }, `${z.gap > 0 ? '+' : ''}${fmt(z.gap)}${Number.isFinite(z.se) ? ` ± ${fmt(z.se)}` : ''}`),
        h('td', { class: 'num' }, fmt(z.unpairedSe)),
        h('td', { class: 'num' }, `${fmt(z.local, 2)}${z.inside ? '' : ' (outside)'}`))))));
}

// What the scaling chart draws: the main-stage runs' final losses per variant (`ordered`, in variant order), the fitted
// curves of the laws that apply to the x axis `xKey` ("params" or "compute"), and the colour of each group.
export function scalingView(allRuns, fits, { xKey, lossKey, unfinished }) {
  const runs = studyRuns(allRuns);
  const groups = scalingPoints(runs, 'variant', lossKey, xKey, unfinished);
  const names = sortGroups([...groups.keys(), ...fits.flatMap((r) => r.groups.map((f) => f.group))], 'variant');
  const colours = groupColours(names, false);
  const colourOf = (g) => colours.get(g) || '#555';
  const ordered = new Map(names.filter((n) => groups.has(n)).map((n) => [n, groups.get(n)]));

  // Fitted curves over the plotted x range, for the laws that can be drawn on this axis.
  const curves = [];
  const xs = [...groups.values()].flat().map((p) => p.x);
  if (xs.length) {
    const grid = logSpace(Math.min(...xs) / 1.5, Math.max(...xs) * 1.5);
    for (const [report, f] of fits.flatMap((r) => r.groups.map((g) => [r, g]))) {
      const own = runs.filter((r) => r.variant === f.group && r.params > 0 && r.tokens > 0);
      const ratio = median(own.map((r) => r.tokens / r.params));
      const curve = fitCurve(report.law, f.parameters, xKey, ratio);
      if (!curve) continue;
      const ys = grid.map((x) => {
        const y = curve(x);
        return Number.isFinite(y) && y > 0 ? y : null;
      });
      if (ys.some((y) => y !== null)) {
        // The stored pointwise band where the fit has one; for older fits, the range over the corners.
        const band = storedBand(f, xKey, grid) ?? fitBand(report.law, f.parameters, xKey, ratio, grid);
        curves.push({ group: f.group, law: report.law, xs: grid, ys, band });
      }
    }
  }
  return { groups: ordered, fits: curves, colourOf, xKey, confidence: fits[0]?.confidence ?? 0.95 };
}

// The legend of the scaling chart: a dot per group with its number of runs, and what a dashed line is.
export function scalingLegend(view) {
  return [[...view.groups.keys()].map((g) => h('span', { class: 'key' },
    h('span', { class: 'dot', style: { background: view.colourOf(g) } }), `${g} (${view.groups.get(g).length})`)),
  view.fits.length ? h('span', { class: 'key note' }, 'dashed: fitted law') : null,
  view.fits.some((f) => f.band?.pointwise) ? h('span', { class: 'key note band-note' }, `band: the law's pointwise ${Math.round(100 * view.confidence)}% bootstrap interval (at each x, the refitted laws' losses)`) : null,
  view.fits.some((f) => f.band && !f.band.pointwise) ? h('span', { class: 'key note band-note' }, `band: the law's range over its parameters' ${Math.round(100 * view.confidence)}% bootstrap intervals (every corner: a fit stored before pointwise bands, wider than one)`) : null,
  view.fits.some((f) => !f.band) ? h('span', { class: 'key note' }, `no band: ${view.fits.filter((f) => !f.band).map((f) => f.group).join(', ')} (a parameter's interval is unbounded, or there was no bootstrap)`) : null];
}

// One fit report: its law and bootstrap, each group's parameters with intervals, multipliers, warnings.
export function fitTable(report, colourOf) {
  const est = (e) => (e ? `${si(num(e.value), 4)}${Number.isFinite(num(e.lo)) ? ` [${si(num(e.lo), 3)}, ${si(num(e.hi), 3)}]` : ''}` : '–');
  const names = [...new Set((report.groups || []).flatMap((g) => Object.keys(g.parameters || {})))];
  return h('div', { class: 'fit', dataset: { law: report.law } },
    h('div', {}, 'law ', h('code', {}, report.law), report.bootstrap ? `, ${report.bootstrap.used}/${report.bootstrap.requested} bootstrap resamples` : ''),
    h('table', {}, (report.groups || []).map((g) => h('tr', {},
      h('th', {}, h('span', { class: 'dot', style: { background: colourOf(g.group) } }), ` ${g.group}`),
      names.map((n) => h('td', {}, `${n} = ${est(g.parameters?.[n])}`)), h('td', {}, `${g.runs ?? ''} runs`)))),
    (report.multipliers || []).filter((m) => m.constant).map((m) =>
      h('div', {}, `compute multiplier of ${m.variant} over ${m.baseline}: `, h('code', {}, est(m.constant)))),
    (report.warnings || []).map((w) => h('div', {}, `⚠ ${w}`)));
}

// The tune stage's pick per group (tuneSeries), coloured as its curve, and why the main stage was not added.
export function tunePicks(tune, colours, stageError) {
  return [tune.groups.map((g) => h('div', { class: 'pick', dataset: { group: g.label, value: g.best?.x ?? '' } },
    h('span', { class: 'dot', style: { background: colours.get(g.label), display: 'inline-block', width: '8px', height: '8px', borderRadius: '50%' } }),
    ` ${g.label}: `, g.best ? `${tune.field} = ${g.best.x} (mean final loss ${g.best.y.toFixed(4)})` : 'no pick',
    g.problem ? h('span', { class: 'err' }, ` — ${g.problem}`) : null)),
  stageError ? h('div', { class: 'err' }, stageError) : null];
}
