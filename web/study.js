// The study's result views, shared by the dashboard (app.js) and the static report (report.js, written by
// `gammalab report`): the final-loss table per size and variant with the stored compute multipliers, the
// scaling plot's points and fitted curves, the fit tables and the tune stage's picks. They take the data
// (runs, fit reports, tune series) and the elements to fill; all text goes in through dom.js.
import { sortGroups, groupColours } from './colours.js';
import { multipliers, pairedComparisons } from './comparisons.js';
import { scalingPoints, fitCurve, logSpace, fitBand, storedBand } from './laws.js';
import { gapClass } from './seeds.js';
import { median, studyTable, num, studyRuns, CLI_FIT_BOOTSTRAP } from './series.js';
import { count, si } from './format.js';
import { h, fill } from './dom.js';
import { surfaceLines, surfaceSizes, markerOf, lawsAtSizes } from './surface.js';
import { headlineReadings, headlineNote } from './headline_reading.js';

// A loss (or other) number with fixed digits, '–' when not finite.
export function fmt(x, digits = 4) {
  return Number.isFinite(x) ? x.toFixed(digits) : '–';
}

// The study table of the main-stage runs (mean ± s.e. (n) per size and variant, difference to the baseline) into `table` (a <table>
// with a thead and a tbody), `empty` shown when no run has a final loss, and the multipliers into `multipliersEl`.
export function renderStudyTable({ table, empty, multipliersEl }, runs, fits, lossKey) {
  const { sizes, variants, budgets } = studyTable(studyRuns(runs), lossKey, fits[0]?.baseline || 'baseline');
  empty.hidden = sizes.length > 0;
  table.hidden = !sizes.length;
  fill(table.tHead, h('tr', {}, h('th', {}, 'model size'), h('th', { class: 'num' }, 'N'),
    budgets ? h('th', { class: 'num' }, 'D') : null,
    variants.map((v) => h('th', { class: 'num', dataset: { variant: v } }, v))));
  fill(table.tBodies[0], sizes.map((row) => h('tr', { dataset: { preset: row.preset, tokens: row.tokens ?? '' } },
    h('th', {}, row.preset), h('td', { class: 'num' }, count(row.params)),
    budgets ? h('td', { class: 'num' }, count(row.tokens)) : null,
    variants.map((v) => {
      const c = row.cells.get(v);
      if (!c) return h('td', { class: 'num' }, '–');
      // Coloured only when resolved: the difference of the two means against its Welch s.e., with the smaller
      // group's df (conservative); a reference cell has no delta.
      const ref = row.cells.get(fits[0]?.baseline || 'baseline');
      const seDiff = ref && ref !== c ? Math.hypot(c.se, ref.se) : NaN;
      const tone = gapClass(c.delta, seDiff, Math.min(c.n, ref?.n ?? 0) - 1);
      return h('td', { class: 'num', dataset: { variant: v, mean: c.mean, se: Number.isFinite(c.se) ? c.se : '', n: c.n, delta: Number.isFinite(c.delta) ? c.delta : '' } },
        h('span', { class: 'mean' }, fmt(c.mean)), Number.isFinite(c.se) ? h('span', { class: 'se' }, ` ± ${fmt(c.se)}`) : null,
        h('span', { class: 'n' }, ` (${c.n})`),
        Number.isFinite(c.delta) ? h('div', { class: `delta ${tone}`, title: tone === 'unresolved' ? 'within the seeds\' noise (95% t interval holds 0)' : '' }, `${c.delta > 0 ? '+' : ''}${fmt(c.delta)} vs baseline`) : null);
    }))));
  // What the runs say before any law comes first, per variant and reference, with the law's multiplier of the same
  // pair beside it; law multipliers no comparison holds (a report stored before comparisons) follow on their own.
  const laws = multipliers(fits);
  const comparisons = pairedComparisons(fits, laws);
  const alone = laws.filter((m) => !comparisons.some((c) => c.laws.includes(m)));
  const sourceReport = fits.find((r) => (r.comparisons || []).length) ?? fits.find((r) => (r.multipliers || []).some((m) => m.constant));
  fill(multipliersEl, comparisons.map(comparisonView),
    alone.length && comparisons.length ? h('div', { class: 'law-heading' }, 'From the fitted law:') : null,
    alone.map((m) => lawView(m, false)),
    comparisons.length || laws.length ? intervalSource(sourceReport) : null);
}

// Multipliers with two decimals, as the CLI's verdict gives them; a percentage of the confidence as it prints it.
const times = (x) => fmt(x, 2);
const percent = (confidence) => `${+(100 * confidence).toPrecision(5)}%`;
const signed = (x) => `${x > 0 ? '+' : ''}${fmt(x)}`;

// Beside each interval: the resamples it rests on (used of requested: a resample whose refit fails is dropped).
// The coordinator's automatic refit draws its own number of them (its --fit-bootstrap), so `gammalab fit` on the
// same sweep gives the same estimate with an interval that differs by resampling noise; the count says which.
export const resampleCount = (r) => `${r.used.toLocaleString('en-US')}/${r.requested.toLocaleString('en-US')} resamples`;

// Where the intervals of the card come from, said once under them: the coordinator's stored fit (its version),
// its resamples, and why `gammalab fit` may print other intervals. Null without a bootstrap to speak of.
export function intervalSource(report) {
  const used = report?.bootstrap?.used ?? 0;
  if (!(used > 0)) return null;
  const requested = report.bootstrap.requested ?? used;
  const version = report.version != null ? ` (version ${report.version})` : '';
  return h('div', { class: 'note interval-source', dataset: { used, requested } },
    `Intervals from the coordinator's stored fit${version}: ${resampleCount({ used, requested })}`,
    `${report.bootstrap.seed !== undefined ? ` (seed ${report.bootstrap.seed})` : ''}. `,
    // (The CLI's default count comes with /api/meta, core/scaling/fit_options.h's; a report written by an older
    // CLI may lack it, and then only the option is named.)
    h('code', {}, 'gammalab fit'), ` draws its own (${CLI_FIT_BOOTSTRAP === null ? '' : `${CLI_FIT_BOOTSTRAP.toLocaleString('en-US')} by default, `}`,
    h('code', {}, '--bootstrap'), '): the same estimates, intervals that differ by resampling noise.');
}

// "-0.0228 ± 0.0035": a gap with its standard error ("± –" with too few runs for one), as cli/fit_view.cpp gap_text.
function gapText(g) {
  return g && Number.isFinite(g.mean) ? `${signed(g.mean)} ± ${fmt(g.se)}` : '–';
}

// An estimate's interval in the CLI's words (cli/fit_view.cpp interval_text): a value at the edge of its domain is
// "not identified (at bound)", never a zero-width interval, and one the bootstrap did not bound is "unbounded".
function intervalText(e, digits = 2) {
  if (e.atBound) return 'not identified (at bound)';
  return e.bounded ? `[${bound(e.lo, digits)}, ${bound(e.hi, digits)}]` : 'unbounded: add sizes or seeds';
}
// An interval's end: fixed digits, as the CLI's verdict gives them, up to 1000; above, three significant digits
// in exponent form (a bootstrap end of 4.4e16 says "no upper bound worth the name" without 20 digits of it).
const bound = (x, digits) => (Number.isFinite(x) && Math.abs(x) >= 1000 ? x.toPrecision(3) : fmt(x, digits));

// The law-based multiplier (comparisons.js multipliers) as the CLI's verdict says it: `beside` a comparison of the same
// variant and reference, which names them, it says only what the law gives; on its own it names them too. The
// profile range is what the joint fit cannot tell apart; `holdout` where the laws cannot carry so small a difference.
function lawView(m, beside, holdout = null) {
  const who = beside ? `from the fitted law ${m.law}: ` : `${m.variant} over ${m.baseline}, from the fitted law ${m.law}: `;
  // An infinite m: the baseline's law never reaches the variant's loss (the CLI quotes no such multiplier either).
  if (!Number.isFinite(m.value)) {
    return h('div', { class: `multiplier${beside ? ' beside' : ''}`, dataset: { variant: m.variant, baseline: m.baseline, law: m.law, value: m.value } },
      h('span', { class: 'law' }, who), 'no multiplier inside the data');
  }
  const interval = m.atBound ? 'not identified (at bound)'
    : !m.bootstrapped ? '(no bootstrap)'
      : m.interval ? `[${times(m.interval[0])}, ${times(m.interval[1])}]` : 'unbounded: add sizes or seeds';
  return h('div', { class: `multiplier${beside ? ' beside' : ''}`, dataset: { variant: m.variant, baseline: m.baseline, law: m.law, value: m.value, lo: m.lo, hi: m.hi } },
    h('span', { class: 'law' }, who),
    h('span', { class: 'big' }, `${times(m.factor)}× ${m.better ? 'less' : 'more'} compute`),
    h('span', { class: 'interval' }, ` ${interval}`),
    h('span', { class: 'note' }, ` (m = ${m.value.toPrecision(4)}`,
      m.bootstrapped && !m.atBound ? `; ${percent(m.confidence)} bootstrap interval over ${m.unit || 'model sizes'}, ${resampleCount(m.resamples)}` : '',
      m.range.length === 2 ? `; for C from ${si(m.range[0])} to ${si(m.range[1])} FLOPs` : '', ')'),
    m.includesOne ? h('span', { class: 'note one' }, '; the interval includes 1×: no clear difference') : null,
    m.profile ? h('span', { class: 'note profile' }, m.profile.open
      ? `; the fit cannot tell multipliers from ${times(m.profile.lo)} to ${times(m.profile.hi)} apart, and beyond: the law does not identify it`
      : `; the fit's objective allows ${times(m.profile.lo)} to ${times(m.profile.hi)}`) : null,
    holdout ? h('div', { class: 'warn' }, `but the laws miss the largest size's mean loss by up to ${fmt(100 * holdout.error, 1)}% predicting it `
      + `from the others, more than the ${fmt(100 * holdout.effect, 1)}% difference being measured: the law-based figure is not `
      + 'supported by the data; the local multiplier above is') : null);
}

// One comparison (comparisons.js pairedComparisons): its verdict as the coordinator stored it with the fit
// (core/scaling/verdict.h), the very sentences `gammalab fit` prints: one headline from the estimator the design
// supports, then how it was got, per size, the trend and the other estimator as a check; then the paired gap per
// size (the CLI's table of fit_report_text). A fit stored before verdicts were kept says so.
function comparisonView(c) {
  const verdict = c.verdict
    ? [h('span', { class: `big${c.verdict.settled ? '' : ' unsettled'}` }, c.verdict.headline),
      ...c.verdict.details.map((line) => h('div', { class: 'note detail' }, line))]
    : [h('span', { class: 'big' }, `${c.variant} over ${c.reference}`),
      h('span', { class: 'note' }, ' (this fit was stored before its verdict was kept with it: the coordinator writes it '
        + 'at its next refit, and gammalab fit --refit prints it now)')];
  const unpaired = c.sizes.some((z) => z.unpaired);
  // A surface (several budgets per size): each row names its D, as the CLI's table does.
  const budgets = new Set(c.sizes.map((z) => z.params)).size < c.sizes.length;
  // From the sizes, not from `paired`: one seed per group pairs every run, though a bootstrap over sizes drew none.
  const design = c.complete ? 'paired: runs sharing a seed'
    : c.anyPairs ? 'pairs incomplete: the unpaired gap beside' : 'unpaired: no runs share a seed';
  return h('div', { class: 'comparison', dataset: { variant: c.variant, reference: c.reference, value: c.value, factor: c.factor, better: c.better, estimator: c.verdict?.estimator ?? '', settled: c.verdict?.settled ?? '' } },
    h('div', { class: 'local' }, verdict),
    c.sizes.length ? h('table', { class: 'gaps' },
      h('caption', {}, `${c.variant} − ${c.reference} by size (${design})`),
      h('thead', {}, h('tr', {}, h('th', {}, 'N'), budgets ? h('th', {}, 'D') : null, h('th', {}, 'pairs'), h('th', {}, 'paired gap'),
        unpaired ? h('th', {}, 'unpaired gap') : null,
        h('th', { title: c.seeded ? `${percent(c.confidence)} interval, ${resampleCount(c.resamples)} of the coordinator's stored fit` : '' }, 'm_local'), h('th', { class: 'text' }, 'note'))),
      h('tbody', {}, c.sizes.map((z) => h('tr', {
        dataset: {
          params: z.params, pairs: z.pairs, gap: z.gap, se: Number.isFinite(z.paired?.se) ? z.paired.se : '',
          unpaired: z.unpaired ? z.unpaired.mean : '', local: z.local ? z.local.value : '',
        },
      },
      h('td', {}, count(z.params)),
      budgets ? h('td', {}, count(z.tokens)) : null,
      h('td', {}, String(z.pairs)),
      h('td', { class: z.paired ? gapClass(z.paired.mean, z.paired.se, z.pairs - 1) : '' }, gapText(z.paired)),
      unpaired ? h('td', {}, z.unpaired ? gapText(z.unpaired) : '') : null,
      h('td', {}, z.local ? `${times(z.local.value)}${!c.seeded ? '' : z.seeds < 3 ? ' (too few seeds to bound)' : ` ${intervalText(z.local)}`}` : '–'),
      h('td', { class: 'text' }, [z.complete ? '' : z.pairs === 0 ? 'no pairs' : 'pairs incomplete',
        z.outside ? `outside ${c.reference}'s range` : ''].filter(Boolean).join('; ')))))) : null);
}

// What the scaling chart draws: the main-stage runs' final losses per variant (`ordered`, in variant order), the fitted
// curves of the laws that apply to the x axis `xKey` ("params" or "compute"), and the colour of each group.
// `hidden`: variants left off the chart (their points, laws and bands), which keep their colours.
// On a surface of cooldown branches (several budgets D per size, surface.js) the Chinchilla law is drawn against D
// at each size (surfaceView), not here: against N it could only be drawn at one tokens per parameter, through one
// of a size's budgets and past the others.
export function scalingView(allRuns, fits, { xKey, lossKey, unfinished, hidden = [] }) {
  const runs = studyRuns(allRuns);
  const { surface } = surfaceLines(runs, lossKey);
  const groups = scalingPoints(runs, 'variant', lossKey, xKey, unfinished);
  const names = sortGroups([...groups.keys(), ...fits.flatMap((r) => r.groups.map((f) => f.group))], 'variant');
  const colours = groupColours(names, false);
  const colourOf = (g) => colours.get(g) || '#555';
  const all = new Map(names.filter((n) => groups.has(n)).map((n) => [n, groups.get(n)]));
  const ordered = new Map([...all].filter(([n]) => !hidden.includes(n)));

  // Fitted curves over the plotted x range, for the laws that can be drawn on this axis.
  const curves = [];
  const xs = [...groups.values()].flat().map((p) => p.x);
  if (xs.length) {
    const grid = logSpace(Math.min(...xs) / 1.5, Math.max(...xs) * 1.5);
    for (const [report, f] of fits.flatMap((r) => r.groups.map((g) => [r, g]))) {
      if (hidden.includes(f.group) || (surface && report.law === 'chinchilla')) continue;
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
  const boot = fits[0]?.bootstrap;
  const reading = headlineReadings(pairedComparisons(fits), { xKey, lossKey, hidden, baseline: fits[0]?.baseline || 'baseline',
    range: xs.length ? [Math.min(...xs), Math.max(...xs)] : null });
  return { groups: ordered, all, hidden, fits: curves, reading, colourOf, xKey, surface, confidence: fits[0]?.confidence ?? 0.95,
    resamples: boot?.used > 0 ? { used: boot.used, requested: boot.requested ?? boot.used } : null };
}

// What the plot of final loss against tokens D draws (surface.js): per variant and size the mean final loss over
// seeds at each budget, in the variant's colour of every other card and a marker per size, and the stored
// Chinchilla law at each size's N over the budgets' range. `hidden`: variants left off (the scaling legend's).
// `surface` false: no size has two budgets, and the plot is not shown.
export function surfaceView(allRuns, fits, { lossKey, hidden = [] }) {
  const { lines: all, surface } = surfaceLines(allRuns, lossKey);
  const sizes = surfaceSizes(all);
  const names = sortGroups([...all.map((l) => l.variant), ...fits.flatMap((r) => r.groups.map((g) => g.group))], 'variant');
  const colours = groupColours(names, false);
  const colourOf = (g) => colours.get(g) || '#555';
  const lines = all.filter((l) => !hidden.includes(l.variant));
  const laws = surface ? lawsAtSizes(lines, fits) : [];
  return { surface, lines, all, sizes, laws, colourOf, markerOf: (preset) => markerOf(sizes, preset), hidden };
}

// Under the plot against D: the marker of each size with its N, and what the lines and points are.
export function surfaceLegend(view) {
  const params = new Map(view.all.filter((l) => l.variant === 'baseline' || !view.all.some((o) => o.preset === l.preset && o.variant === 'baseline'))
    .map((l) => [l.preset, l.params]));
  return [view.sizes.map((preset) => h('span', { class: 'key size', dataset: { preset } },
    h('span', { class: 'marker' }, view.markerOf(preset).glyph), ` ${preset}`, h('span', { class: 'note' }, ` (N ${count(params.get(preset))})`))),
  h('span', { class: 'key note' }, 'solid: the runs, mean over seeds'),
  view.laws.length ? h('span', { class: 'key note' }, 'dashed: the fitted law L(N, D) at each size\'s N, over its budgets') : null];
}

// The legend of the scaling chart: a dot per group with its number of runs, and what a dashed line is. With
// `onToggle(group)`, each group's key is a button that hides or shows it.
export function scalingLegend(view, onToggle = null) {
  const key = (g) => [h('span', { class: 'dot', style: { background: view.colourOf(g) } }), `${g} (${view.all.get(g).length})`];
  return [[...view.all.keys()].map((g) => (onToggle
    ? h('button', { type: 'button', class: `key${view.hidden.includes(g) ? ' off' : ''}`, dataset: { group: g },
      title: 'click: hide or show this variant', onclick: () => onToggle(g) }, key(g))
    : h('span', { class: 'key' }, key(g)))),
  view.fits.length ? h('span', { class: 'key note' }, 'dashed: fitted law') : null,
  headlineNote(view.reading) ? h('span', { class: 'key note headline-note' }, headlineNote(view.reading)) : null,
  view.fits.some((f) => f.band?.pointwise) ? h('span', { class: 'key note band-note' }, `band: the law's pointwise ${Math.round(100 * view.confidence)}% bootstrap interval (at each x, the refitted laws' losses${view.resamples ? `; ${resampleCount(view.resamples)} of the coordinator's stored fit` : ''})`) : null,
  view.fits.some((f) => f.band && !f.band.pointwise) ? h('span', { class: 'key note band-note' }, `band: the law's range over its parameters' ${Math.round(100 * view.confidence)}% bootstrap intervals (every corner: a fit stored before pointwise bands, wider than one)`) : null,
  view.fits.some((f) => !f.band) ? h('span', { class: 'key note' }, `no band: ${view.fits.filter((f) => !f.band).map((f) => f.group).join(', ')} (a parameter's interval is unbounded, or there was no bootstrap)`) : null];
}

// One fit report: its law and bootstrap, each group's parameters with intervals, multipliers, warnings.
export function fitTable(report, colourOf) {
  // A parameter at the edge of its domain has no interval: say so, as the CLI does, rather than show none.
  const est = (e) => (e ? `${si(num(e.value), 4)}${e.at_bound ? ' not identified (at bound)'
    : Number.isFinite(num(e.lo)) ? ` [${si(num(e.lo), 3)}, ${Number.isFinite(num(e.hi)) ? si(num(e.hi), 3) : 'unbounded'}]` : ''}` : '–');
  const names = [...new Set((report.groups || []).flatMap((g) => Object.keys(g.parameters || {})))];
  return h('div', { class: 'fit', dataset: { law: report.law } },
    h('div', {}, 'law ', h('code', {}, report.law), report.bootstrap ? `, ${report.bootstrap.used}/${report.bootstrap.requested} bootstrap resamples` : '',
      `: the coordinator's stored fit${report.version != null ? ` (version ${report.version})` : ''}`),
    h('table', {}, (report.groups || []).map((g) => h('tr', {},
      h('th', {}, h('span', { class: 'dot', style: { background: colourOf(g.group) } }), ` ${g.group}`),
      names.map((n) => h('td', {}, `${n} = ${est(g.parameters?.[n])}`)), h('td', {}, `${g.runs ?? ''} runs`)))),
    (report.multipliers || []).filter((m) => m.constant).map((m) =>
      h('div', {}, `compute multiplier of ${m.variant} over ${m.baseline}: `, h('code', {}, est(m.constant)))),
    (report.warnings || []).map((w) => h('div', {}, `⚠ ${w}`)));
}

// The tune stage's pick per group (tuneSeries), coloured as its curve, and why the main stage was not added.
// How the tune chart draws its groups: each in its variant's colour, the one it has on every other card (and a
// group without a variant, in a colour of its own); several groups of one variant (its sizes) by dash pattern.
const TUNE_DASHES = [undefined, [6, 4], [2, 3], [10, 3, 2, 3]];
export function tuneStyles(tune) {
  const byVariant = groupColours(sortGroups(tune.groups.map((g) => g.variant).filter(Boolean), 'variant'), false);
  const byLabel = groupColours(tune.groups.map((g) => g.label), false);
  const colours = new Map();
  const dashes = new Map();
  const seen = new Map();  // variant -> groups so far
  for (const g of tune.groups) {
    colours.set(g.label, byVariant.get(g.variant) ?? byLabel.get(g.label));
    const k = seen.get(g.variant) ?? 0;
    seen.set(g.variant, k + 1);
    dashes.set(g.label, g.variant ? TUNE_DASHES[k % TUNE_DASHES.length] : undefined);
  }
  return { colours, colourOf: (label) => colours.get(label), dashOf: (label) => dashes.get(label) };
}

export function tunePicks(tune, colours, stageError) {
  // How many picks sit at an edge of their grid, first, as `gammalab tune` marks each: a pick there is a bound.
  const picked = tune.groups.filter((g) => g.best);
  const atEdge = picked.filter((g) => g.edge).length;
  return [atEdge ? h('div', { class: 'err edges' }, `${atEdge} of ${picked.length} picks at an edge of the grid: the best value may lie beyond it`) : null,
    tune.groups.map((g) => h('div', { class: 'pick', dataset: { group: g.label, value: g.best?.x ?? '' } },
    h('span', { class: 'dot', style: { background: colours.get(g.label), display: 'inline-block', width: '8px', height: '8px', borderRadius: '50%' } }),
    ` ${g.label}: `, g.best ? `${tune.field} = ${+Number(g.best.x).toPrecision(6)} (mean final loss ${g.best.y.toFixed(4)})` : 'no pick',
    g.best && g.best.origin === 'extended' ? ' · beyond the grid as written (tune.extend)' : null,
    g.best && g.best.origin === 'refined' ? ' · between grid values (tune.refine)' : null,
    g.best && g.edge ? h('span', { class: 'err' }, ' — at an edge of the grid: the best may lie beyond it') : null,
    g.best && g.share !== null ? h('span', { class: g.share < 0.8 ? 'err' : '' },
      ` · holds in ${Math.round(100 * g.share)}% of resamples of its ${g.seeds} tune seeds`
      + (g.share < 0.8 ? ': the values are not told apart by these seeds; add tune seeds' : '')) : null,
    g.best && g.share === null && g.seeds === 1
      ? h('span', { class: 'note' }, ' · one tune seed: each point is one run, and how sure the pick is is not measured (tune.seeds: 2 or more)') : null,
    g.problem ? h('span', { class: 'err' }, ` — ${g.problem}`) : null)),
  (tune.rules || []).map((r) => h('div', { class: r.problem ? 'rule err' : 'rule', dataset: { family: r.label } },
    r.problem ? `size rule ${r.label}: none — ${r.problem}`
      : `size rule ${r.label}: log ${tune.field} = ${r.intercept.toFixed(3)} ${r.slope < 0 ? '−' : '+'} ${Math.abs(r.slope).toFixed(3)} log N (slope s.e. ${r.slopeSe.toFixed(3)}, ${r.df} df); sizes scatter about it by ×${r.scatter.toFixed(2)}; the main stage runs at the rule's value`)),
  stageError ? h('div', { class: 'err' }, stageError) : null];
}
