// The study part of docs/results.md, written from the two `gammalab report` files of a `make study` run
// (scripts/study.sh): the LRs the tune stages picked, the ablation table, the scale-vector norms with and
// without weight decay, the ladder's table, fitted laws and multipliers, and each claim of the paper beside
// what the run measured. Every number comes from the reports' inlined data (cli/client/report_data.h), read
// with the dashboard's own helpers (series.js); the verdicts follow fixed rules stated on the page, so the
// page says what the run says, whichever way it came out.
//   node web/tools/study-results.js --ablation A.html --ladder L.html --figures docs/img/results \
//     --minutes M --page docs/results.md
// Replaces the text between the page's "study:begin" and "study:end" markers (both must be there once).
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setMeta, studyTable, meanSe, fitReports, multipliers, studyRuns, count } from '../series.js';

const BEGIN = '<!-- study:begin (written by web/tools/study-results.js from a `make study` run; edits here are lost) -->';
const END = '<!-- study:end -->';
// The paper's numbers this page compares with (docs/variants.md, §5 of the paper's results).
const PAPER = { noneGap: 0.028, noneGapRetuned: 0.015, multiplier: [1.22, 1.25] };
// A difference is "resolved" when it is more than this many standard errors of the difference from zero.
const RESOLVED_SE = 2;

const { values } = parseArgs({
  options: {
    ablation: { type: 'string' }, ladder: { type: 'string' }, figures: { type: 'string' },
    minutes: { type: 'string' }, page: { type: 'string' },
  },
});
for (const k of ['ablation', 'ladder', 'figures', 'minutes', 'page']) {
  if (!values[k]) throw new Error(`--${k} is required (usage in the file's head)`);
}
const minutes = Number(values.minutes);
if (!(Number.isInteger(minutes) && minutes >= 0)) throw new Error(`--minutes: expected a whole number of minutes, got ${values.minutes}`);

function reportData(file) {
  const html = readFileSync(file, 'utf8');
  const m = html.match(/<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/);
  if (!m) throw new Error(`${file}: no report data (is it a gammalab report?)`);
  const data = JSON.parse(m[1]);
  if (data.format !== 1) throw new Error(`${file}: report data format ${data.format}, this tool reads format 1`);
  return data;
}

const f4 = (x) => (Number.isFinite(x) ? x.toFixed(4) : '–');
const signed = (x, d = 4) => (Number.isFinite(x) ? `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(d)}` : '–');
const pm = (c) => (c && c.n ? `${f4(c.mean)} ± ${Number.isFinite(c.se) ? c.se.toFixed(4) : '–'} (${c.n})` : '–');
const sci = (x) => (Number.isFinite(x) ? x.toExponential(2).replace('e+', 'e') : '–');

// The difference of two cells (mean ± s.e.) with the s.e. of the difference, and whether it is resolved.
function difference(a, b) {
  const delta = a.mean - b.mean;
  const se = Math.sqrt((a.se || 0) ** 2 + (b.se || 0) ** 2);
  return { delta, se, resolved: Number.isFinite(se) && se > 0 && Math.abs(delta) > RESOLVED_SE * se };
}
const diffText = (d) => `${signed(d.delta)} ± ${d.se.toFixed(4)}${d.resolved ? '' : ' (within noise)'}`;

const config = (job) => JSON.parse(job.config_json);

// Per group of the tune report: its key, the value picked and whether it sits on an edge of the grid.
function tunePicks(sweep) {
  const report = sweep.tune_report_json ? JSON.parse(sweep.tune_report_json) : null;
  return (report?.groups || []).map((g) => {
    const trials = g.trials || [];
    const field = Object.keys(trials[0]?.values || {})[0];
    const best = trials[g.best];
    return {
      key: Object.values(g.key || {}).join(' '), field, value: best?.values[field], problem: g.problem || '',
      edge: g.best === 0 || g.best === trials.length - 1,
      losses: trials.map((t) => `${t.values[field]}: ${f4(t.mean_loss)}`).join(', '),
    };
  });
}

function tuneSection(title, sweep, carried) {
  const picks = tunePicks(sweep);
  const lines = [`**${title}** (${picks[0]?.field ?? 'optim.lr'}; mean final loss per value tried${carried ? `; ${carried}` : ''}):`, '',
    '| variant | pick | at an edge of the grid | value: mean final loss |', '|---|---|---|---|'];
  for (const p of picks) lines.push(`| ${p.key} | ${p.value ?? `none: ${p.problem}`} | ${p.edge ? 'yes' : 'no'} | ${p.losses} |`);
  return lines.join('\n');
}

// The scale-vector RMS of one role over training, per variant: the mean over its runs of the first and the
// last logged value, and the weight-decay rule of its scale vectors.
function normsByVariant(data, metric) {
  const byVariant = new Map();
  const runOf = new Map(data.runs.map((r) => [r.id, r]));
  for (const job of data.jobs) {
    const run = runOf.get(job.id);
    const col = data.metrics?.[job.id]?.[metric];
    if (!run || run.stage === 'tune' || run.state !== 'succeeded' || !col?.value?.length) continue;
    if (!byVariant.has(run.variant)) byVariant.set(run.variant, { decay: config(job).scale?.decay ?? '?', first: [], last: [], steps: col.step });
    const v = byVariant.get(run.variant);
    v.first.push(col.value[0]);
    v.last.push(col.value[col.value.length - 1]);
  }
  return [...byVariant].map(([variant, v]) => ({
    variant, decay: v.decay, first: meanSe(v.first), last: meanSe(v.last), firstStep: v.steps[0], lastStep: v.steps[v.steps.length - 1],
  }));
}

function lawLine(report, g) {
  const est = (e) => (e ? `${Number(e.value).toPrecision(4)}${e.bounded ? ` [${Number(e.lo).toPrecision(3)}, ${Number(e.hi).toPrecision(3)}]` : ' (unbounded: add sizes or seeds)'}` : '–');
  const params = Object.entries(g.parameters || {}).map(([k, e]) => `${k} = ${est(e)}`).join(', ');
  const hold = g.holdout ? `; predicting the largest size from the others misses by up to ${(100 * g.holdout.max_abs_relative_error).toFixed(1)}%` : '';
  return `| ${report.law} | ${g.group} | ${g.converged ? params : `not fitted: ${g.problem || g.termination || 'did not converge'}`} | ${g.model_sizes ?? '–'} sizes, ${g.runs} runs${hold} |`;
}

// "1.31× less compute [1.05, 1.62]" from a multiplier m (baseline compute over the variant's for equal loss).
function multiplierText(m) {
  if (!Number.isFinite(m.value)) return 'no multiplier';
  const better = m.value >= 1;
  const f = (x) => (better ? x : 1 / x);
  const [lo, hi] = better ? [m.lo, m.hi] : [1 / m.hi, 1 / m.lo];
  const interval = m.bounded ? `[${lo.toFixed(2)}, ${hi.toFixed(2)}]` : '(interval unbounded: add sizes or seeds)';
  return `${f(m.value).toFixed(2)}× ${better ? 'less' : 'more'} compute ${interval}`;
}

function claimRow(claim, ours, verdict) {
  return `| ${claim} | ${ours} | ${verdict} |`;
}

function main() {
  const ablation = reportData(values.ablation);
  const ladder = reportData(values.ladder);
  setMeta(ladder.meta);
  const pageFile = resolve(values.page);
  const figures = (sweep, name) => join(relative(dirname(pageFile), resolve(values.figures)), sweep, `${name}.png`);
  const out = [BEGIN, '', '## The full CPU reproduction (`make study`)', ''];
  const runs = (data) => studyRuns(data.runs).filter((r) => r.state === 'succeeded');

  const aRuns = runs(ablation);
  const lRuns = runs(ladder);
  const aRow = studyTable(aRuns, 'loss').sizes[0];
  const lTable = studyTable(lRuns, 'loss');
  const jobsOf = (data) => data.jobs.length;
  const reusedOf = (data) => data.jobs.filter((j) => j.reused_from).length;
  const reused = reusedOf(ablation) + reusedOf(ladder);
  out.push(`Written from one run of \`make study\` (${ablation.generated_at.slice(0, 10)}), ${minutes} minutes on this`,
    `machine's 2 CPU cores for its ${jobsOf(ablation) + jobsOf(ladder)} jobs${reused ? ` (${reused} of them finished in an earlier run with the same config and were reused by config hash, not rerun)` : ''}:`,
    '`configs/sweeps/study-ablation.yaml` and `configs/sweeps/study-ladder.yaml`, byte-level',
    'Brown, AdamW + cosine, each variant at the LR its tune stage picked (the tune runs have seeds of their own, so',
    'no main run is the tune run that won its pick). The final loss of a run is the val loss',
    'of its evaluation at the last step (docs/scaling-laws.md). Differences are given ± their standard error',
    `(the two s.e. in quadrature); "within noise" marks one smaller than ${RESOLVED_SE} s.e. These are models of`,
    `${count(Math.min(...lRuns.map((r) => r.params)))}–${count(Math.max(...lRuns.map((r) => r.params)))} non-embedding parameters on 5–10 tokens per parameter, far below the paper's`,
    '0.12B–1B at 100: they test the method on our runs, not the paper\'s claims at its scale.', '');

  out.push('### Learning rates', '', tuneSection(`Ablation, at ${aRow?.preset ?? '?'}`, ablation.sweep), '',
    tuneSection('Ladder, at tiny-0.03m', ladder.sweep, 'carried to the other sizes as LR × 32 / d_model'), '');

  // (a) the ablation
  const base = aRow?.cells.get('baseline');
  out.push(`### Every variant at one size: ${aRow?.preset} (${count(aRow?.params ?? 0)} non-embedding parameters, ${count(aRuns[0]?.tokens ?? 0)} tokens)`, '',
    '| variant | final val loss, mean ± s.e. (seeds) | − baseline |', '|---|---|---|');
  const aDiff = new Map();
  for (const v of studyTable(aRuns, 'loss').variants) {
    const c = aRow.cells.get(v);
    const d = base && v !== 'baseline' ? difference(c, base) : null;
    if (d) aDiff.set(v, d);
    out.push(`| ${v} | ${pm(c)} | ${d ? diffText(d) : ''} |`);
  }
  out.push('', `![Val loss of every ablation run against step](${figures('ablation', 'val')})`, '');

  // Theorem 2.3: the Input-Norm vectors' RMS with and without decay
  const norms = normsByVariant(ablation, 'scale_rms/input');
  out.push('### Scale-vector norms with and without weight decay (Theorem 2.3)', '',
    'RMS of the Input-Norm scale vectors (`scale_rms/input`), mean over seeds, at the first and the last logged',
    'step; `decay` is the variant\'s weight-decay rule for its scale vectors (λ 0.1 where it applies).', '',
    '| variant | decay | first | last | last / first |', '|---|---|---|---|---|');
  for (const n of norms) out.push(`| ${n.variant} | ${n.decay} | ${f4(n.first.mean)} (step ${n.firstStep}) | ${pm(n.last)} (step ${n.lastStep}) | ${(n.last.mean / n.first.mean).toFixed(3)} |`);
  out.push('', `![Input-Norm scale-vector RMS per run against step](${figures('ablation', 'scale-rms-input')})`, '');

  // (b) the ladder
  out.push(`### Baseline, none and unified on ${lTable.sizes.length} sizes`, '',
    `| size | N | ${lTable.variants.join(' | ')} | none − baseline | unified − baseline |`,
    `|---|---|${lTable.variants.map(() => '---').join('|')}|---|---|`);
  const perSize = [];
  for (const row of lTable.sizes) {
    const b = row.cells.get('baseline');
    const dn = b && row.cells.get('none') ? difference(row.cells.get('none'), b) : null;
    const du = b && row.cells.get('unified') ? difference(row.cells.get('unified'), b) : null;
    perSize.push({ preset: row.preset, none: dn, unified: du });
    out.push(`| ${row.preset} | ${count(row.params)} | ${lTable.variants.map((v) => pm(row.cells.get(v))).join(' | ')} | ${dn ? diffText(dn) : '–'} | ${du ? diffText(du) : '–'} |`);
  }
  const fits = ladder.fits ? fitReports(ladder.fits) : [];
  out.push('', `Fitted laws (the coordinator's stored fit v${ladder.fits?.version ?? '–'}, ${fits[0]?.bootstrap?.used ?? 0} bootstrap resamples of the runs within each size, ${Math.round(100 * (fits[0]?.confidence ?? 0.95))}% intervals):`, '',
    '| law | variant | parameters | data |', '|---|---|---|---|');
  for (const report of fits) for (const g of report.groups) out.push(lawLine(report, g));
  for (const report of fits) for (const w of report.warnings || []) out.push('', `Warning (law ${report.law}): ${w}`);
  const ms = multipliers(fits);
  out.push('', 'Compute multipliers over baseline (law c with a shared exponent; over the compute range the runs cover):', '');
  for (const m of ms) out.push(`- **${m.variant}**: ${multiplierText(m)}, for C from ${sci(m.range[0])} to ${sci(m.range[1])} FLOPs`);
  if (!ms.length) out.push('- none: the stored fit has no law-c multiplier');
  out.push('', `![Final loss against compute, with the fitted laws](${figures('ladder', 'scaling-compute')})`,
    `![Final loss against size, with the fitted laws](${figures('ladder', 'scaling-params')})`, '');

  // The claims, by fixed rules
  out.push('### The paper\'s claims beside this run', '',
    `Rules: a difference "agrees" or "disagrees" in sign only when resolved (more than ${RESOLVED_SE} s.e.); a multiplier`,
    `agrees when its interval holds the paper's ${PAPER.multiplier.join('–')}×.`, '',
    '| claim (paper) | this run | verdict |', '|---|---|---|');
  const signVerdict = (d, wantPositive) => (!d ? 'not measured' : !d.resolved ? 'not resolved (within noise)'
    : (d.delta > 0) === wantPositive ? 'agrees in sign' : 'disagrees');
  const none = aDiff.get('none');
  out.push(claimRow(`removing every scale vector costs +${PAPER.noneGap} in loss at the same LR, +${PAPER.noneGapRetuned} after retuning it (§2); here every variant runs at its own tuned LR`,
    `${none ? `${diffText(none)} at ${aRow.preset} (ablation); ` : ''}per ladder size: ${perSize.map((s) => (s.none ? signed(s.none.delta, 3) : '–')).join(', ')}`,
    signVerdict(none, true)));
  const lower = perSize.filter((s) => s.unified && s.unified.delta < 0);
  const resolvedLower = lower.filter((s) => s.unified.resolved);
  const resolvedHigher = perSize.filter((s) => s.unified && s.unified.delta > 0 && s.unified.resolved);
  out.push(claimRow('unified has a lower final loss than baseline at every size (§4.2)',
    `lower at ${lower.length} of ${perSize.length} sizes (resolved at ${resolvedLower.length}; resolved higher at ${resolvedHigher.length})`,
    lower.length === perSize.length ? (resolvedLower.length === perSize.length ? 'agrees' : 'same direction, not resolved at every size')
      : resolvedHigher.length ? 'disagrees' : 'not at every size'));
  const mu = ms.find((m) => m.variant === 'unified');
  let muVerdict = 'not measured';
  if (mu) {
    const [lo, hi] = mu.value >= 1 ? [mu.lo, mu.hi] : [1 / mu.hi, 1 / mu.lo];
    const holds = lo <= PAPER.multiplier[0] && hi >= PAPER.multiplier[1];
    const versusPaper = holds ? 'holds the paper\'s value' : lo > PAPER.multiplier[1] ? 'above the paper\'s value'
      : hi < PAPER.multiplier[0] ? 'below the paper\'s value' : 'overlaps the paper\'s range';
    muVerdict = !mu.bounded ? 'not resolved (unbounded interval)'
      : lo <= 1 && hi >= 1 ? `not resolved: the interval includes 1× (and ${versusPaper})`
        : mu.value < 1 ? 'disagrees (unified needs more compute)' : holds ? 'agrees (the interval holds the paper\'s value)' : `same direction, ${versusPaper}`;
  }
  out.push(claimRow(`unified needs ${PAPER.multiplier.join('–')}× less compute (fitted laws, §4.2)`, mu ? multiplierText(mu) : '–', muVerdict));
  for (const [v, what] of [['hg', 'HG (a vector per branch)'], ['dnp', 'DNP (dual placement with a Norm)'], ['or', 'OR (magnitude-direction)'], ['iwd', 'IWD (decay on Input-Norm vectors)'], ['unified', 'unified']]) {
    const d = aDiff.get(v);
    out.push(claimRow(`${what} gains over baseline on one size (§4.1)`, d ? `${diffText(d)} at ${aRow.preset}` : '–', signVerdict(d, false)));
  }
  const withDecay = norms.filter((n) => n.decay !== 'none');
  const without = norms.filter((n) => n.decay === 'none');
  const growth = (list) => list.map((n) => `${n.variant} ×${(n.last.mean / n.first.mean).toFixed(2)}`).join(', ');
  const ratios = (list) => list.map((n) => n.last.mean / n.first.mean);
  const maxWith = Math.max(...ratios(withDecay));
  const minWithout = Math.min(...ratios(without));
  const rising = ratios(without).filter((r) => r > 1).length;
  out.push(claimRow('Input-Norm scale norms stay bounded with weight decay and drift up without it (Theorem 2.3)',
    `last / first RMS without decay: ${growth(without) || '–'} (${rising} of ${without.length} rose); with decay: ${growth(withDecay) || '–'}`,
    !withDecay.length || !without.length ? 'not measured'
      : maxWith < minWithout && rising > without.length / 2 ? `agrees in direction over this run's ${norms[0].lastStep} steps (every decayed variant ends below every undecayed one)`
        : 'not seen in this run'));
  out.push('', END);

  const page = readFileSync(pageFile, 'utf8');
  const at = page.indexOf(BEGIN);
  const end = page.indexOf(END);
  if (at < 0 || end < at || page.indexOf(BEGIN, at + 1) >= 0) throw new Error(`${values.page}: expected the study markers once each`);
  writeFileSync(pageFile, page.slice(0, at) + out.join('\n') + page.slice(end + END.length));
  console.log(`${values.page}: the study part rewritten (${aRuns.length} ablation runs, ${lRuns.length} ladder runs)`);
}

main();
