// The study part of docs/results.md, written from the two `gammalab report` files of a `make study` run
// (scripts/study.sh): the LRs the tune stages picked, the ablation table, the scale-vector norms with and
// without weight decay, the ladder's table, its paired gaps and local multipliers against the baseline and the
// control, the fitted laws, the power of the ladder's own design, and each claim of the paper beside what the run
// measured. Every number comes from the reports' inlined data (cli/client/report_data.h), read with the
// dashboard's own helpers (series.js); the verdict's sentences are the CLI's own (`gammalab fit`, whose text
// --fit holds), so they have one home; the claims follow fixed rules stated on the page, so the page says what the
// run says, whichever way it came out.
//   node web/tools/study-results.js --ablation A.html --ladder L.html --fit FIT.txt --power PLAN.txt \
//     --figures docs/img/results --minutes M --page docs/results.md
// FIT.txt: `gammalab fit LADDER`'s output; PLAN.txt: `gammalab plan study-ladder.yaml --noise-from` (the
// ladder's own runs, web/tools/report-points.js) output. Replaces the text between the page's "study:begin" and
// "study:end" markers (both must be there once). Its tables follow web/tools/study-tables.js.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { relative, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { multipliers, pairedComparisons, estimateOf } from '../comparisons.js';
import { fitReports } from '../laws.js';
import { meanSe } from '../seeds.js';
import { setMeta, studyTable, studyRuns } from '../series.js';
import { count } from '../format.js';
import { reportData } from './report-file.js';
import { config, diffText, f4, oneSizeRows, pairedResolved, pm, signed, tuneSection, writeBlock } from './study-tables.js';

const BEGIN = '<!-- study:begin (written by web/tools/study-results.js from a `make study` run; edits here are lost) -->';
const END = '<!-- study:end -->';
// The paper's numbers this page compares with (docs/variants.md, §5 of the paper's results).
const PAPER = { noneGap: 0.028, noneGapRetuned: 0.015, multiplier: [1.22, 1.25] };
const { values } = parseArgs({
  options: {
    ablation: { type: 'string' }, ladder: { type: 'string' }, fit: { type: 'string' }, power: { type: 'string' },
    figures: { type: 'string' }, minutes: { type: 'string' }, page: { type: 'string' },
  },
});
for (const k of ['ablation', 'ladder', 'fit', 'power', 'figures', 'minutes', 'page']) {
  if (!values[k]) throw new Error(`--${k} is required (usage in the file's head)`);
}
const minutes = Number(values.minutes);
if (!(Number.isInteger(minutes) && minutes >= 0)) throw new Error(`--minutes: expected a whole number of minutes, got ${values.minutes}`);

// The indented lines of the block that `heading` ("verdict:", "warnings:") opens in the CLI's fit text.
function cliBlock(text, heading) {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.trim() === heading);
  if (at < 0) return [];
  const out = [];
  for (const l of lines.slice(at + 1)) {
    if (!/^\s+\S/.test(l)) break;
    out.push(l.trim());
  }
  return out;
}

// The power section of `gammalab plan`'s text: its lines from "power" on, and the measured noise line before it.
function powerLines(text) {
  // The points file is named, not its directory: the page speaks of the study, not of the machine it ran on.
  const lines = text.split('\n').map((l) => l.trim().replace(/(measured on )\S*\//, '$1'));
  const measured = lines.filter((l) => l.startsWith('measured on '));
  const at = lines.findIndex((l) => l.startsWith('power'));
  if (at < 0) throw new Error(`${values.power}: no power section (is it \`gammalab plan\`'s output?)`);
  const rest = [];
  for (const l of lines.slice(at)) { if (!l) break; rest.push(l); }
  return [...measured, ...rest];
}

const sci = (x) => (Number.isFinite(x) ? x.toExponential(2).replace('e+', 'e') : '–');

// The paired gap of `variant` − `reference` against training, per size: at each evaluation (the arms of a size
// share their steps and eval points), the mean over seeds both ran of the difference of their val losses.
// Returns per preset the fractions of training and the mean gap at each.
function gapOverTraining(data, runs, variant, reference) {
  const seedOf = new Map(data.jobs.map((j) => [j.id, config(j).seed]));
  const curve = (run) => data.metrics?.[run.id]?.['val/loss'];
  const out = [];
  for (const preset of [...new Set(runs.map((r) => r.preset))]) {
    const refBySeed = new Map(runs.filter((r) => r.preset === preset && r.variant === reference).map((r) => [seedOf.get(r.id), r]));
    const pairs = runs.filter((r) => r.preset === preset && r.variant === variant && refBySeed.has(seedOf.get(r.id)))
      .map((r) => [curve(r), curve(refBySeed.get(seedOf.get(r.id)))]).filter(([a, b]) => a?.step?.length && b?.step?.length);
    if (!pairs.length) continue;
    const steps = pairs[0][0].step;
    const total = runs.find((r) => r.preset === preset)?.total_steps || steps[steps.length - 1];
    const gaps = steps.map((step) => meanSe(pairs.map(([a, b]) => {
      const i = a.step.indexOf(step), k = b.step.indexOf(step);
      return i < 0 || k < 0 ? NaN : a.value[i] - b.value[k];
    })).mean);
    out.push({ preset, pairs: pairs.length, fractions: steps.map((st) => st / total), gaps });
  }
  return out;
}

// The gap nearest a fraction of training.
const gapAt = (g, fraction) => {
  let best = 0;
  g.fractions.forEach((f, i) => { if (Math.abs(f - fraction) < Math.abs(g.fractions[best] - fraction)) best = i; });
  return g.gaps[best];
};

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
  const est = (raw) => {
    if (!raw) return '–';
    const e = estimateOf(raw);
    const interval = e.atBound ? ' (not identified: at its bound)' : e.bounded ? ` [${e.lo.toPrecision(3)}, ${e.hi.toPrecision(3)}]` : ' (unbounded: add sizes or seeds)';
    return `${e.value.toPrecision(4)}${interval}`;
  };
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
  const fitText = readFileSync(values.fit, 'utf8');
  const power = powerLines(readFileSync(values.power, 'utf8'));
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
  const failed = [...ablation.runs, ...ladder.runs].filter((r) => r.state !== 'succeeded').length;
  // The budget is set from the baseline's model at each size (docs/sweeps.md, `params`): every arm of a size
  // trains on the same tokens, so the ratio is read from the baseline's runs.
  const perParam = [...new Set(lRuns.filter((r) => r.variant === 'baseline').map((r) => Math.round(r.tokens / r.total_params)))];
  const machine = cpus();
  const range = (key) => `${count(Math.min(...lRuns.map((r) => r[key])))}–${count(Math.max(...lRuns.map((r) => r[key])))}`;
  out.push(`Written from one run of \`make study\` (${ablation.generated_at.slice(0, 10)}), ${minutes} minutes on this`,
    `repository's machine (${machine.length} cores of ${machine[0]?.model?.trim() || 'an unnamed CPU'}; two workers of one thread each)${reused ? ` to run ${jobsOf(ablation) + jobsOf(ladder) - reused} of its ${jobsOf(ablation) + jobsOf(ladder)} jobs; the other ${reused} had finished in an earlier run of the same configs and were reused by config hash, not rerun` : ` for its ${jobsOf(ablation) + jobsOf(ladder)} jobs`}${failed ? `; ${failed} did not succeed and are left out` : ''}:`,
    '`configs/sweeps/study-ablation.yaml` and `configs/sweeps/study-ladder.yaml`, byte-level',
    'Brown, AdamW + cosine, each (size, variant) at the LR its tune stage picked (the tune runs have a seed of their',
    'own, so no main run is the tune run that won its pick). The final loss of a run is the val loss',
    'of its evaluation at the last step, on one held-out set of windows for every run (docs/scaling-laws.md).',
    'Differences of means are given ± their standard error (the two s.e. in quadrature); paired gaps (runs of one',
    'seed share data order and initial weights across variants) are the mean over pairs ± its s.e. "Within noise"',
    'marks a difference inside its 95% interval on Student\'s t for the degrees of freedom of its s.e. (2 for 3 pairs,',
    'so 4.30 s.e.; Welch\'s for an unpaired difference), not the 2 s.e. that only many seeds would earn.',
    `The ladder's models have ${range('total_params')} parameters (${range('params')} without embeddings) on ${perParam.join(', ')} tokens per`,
    'parameter (the baseline\'s, embeddings included; every arm of a size trains on the same tokens), far below the paper\'s 0.12B–1B at 100: they test the method on our runs, not the paper\'s claims at its scale.', '',
    '**Its float results are this machine\'s.** The runs are deterministic on one machine, but another CPU rounds',
    'differently, and at these LRs a different rounding acts like another seed: the point estimates move on another',
    'machine by about their seed spread. Read the intervals, not the third digit.', '');

  out.push('### Learning rates', '', tuneSection(`Ablation, at ${aRow?.preset ?? '?'}`, ablation.sweep), '',
    tuneSection('Ladder, at every size and variant', ladder.sweep), '');

  // (a) the ablation
  out.push(`### Every variant at one size: ${aRow?.preset} (${count(aRow?.params ?? 0)} non-embedding parameters, ${count(aRuns[0]?.tokens ?? 0)} tokens)`, '',
    '| variant | final val loss, mean ± s.e. (seeds) | − baseline, paired by seed (pairs) | − baseline, unpaired |', '|---|---|---|---|');
  // The claims below read the paired difference (runs of one seed share data order and initial weights) and
  // fall back to the unpaired one only where seeds do not pair.
  const aDiff = oneSizeRows(ablation, aRuns, 'baseline', out);
  out.push('', `![Val loss of every ablation run against step](${figures('ablation', 'val')})`, '');

  // Theorem 2.3: the Input-Norm vectors' RMS with and without decay
  const norms = normsByVariant(ablation, 'scale_rms/input');
  out.push('### Scale-vector norms with and without weight decay (Theorem 2.3)', '',
    'RMS of the Input-Norm scale vectors (`scale_rms/input`), mean over seeds, at the first and the last logged',
    'step; `decay` is the variant\'s weight-decay rule for its scale vectors (λ 0.1 where it applies).', '',
    '| variant | decay | first | last | last / first |', '|---|---|---|---|---|');
  for (const n of norms) out.push(`| ${n.variant} | ${n.decay} | ${f4(n.first.mean)} (step ${n.firstStep}) | ${pm(n.last)} (step ${n.lastStep}) | ${(n.last.mean / n.first.mean).toFixed(3)} |`);
  out.push('', `![Input-Norm scale-vector RMS per run against step](${figures('ablation', 'scale-rms-input')})`, '');

  // (b) the ladder: the table of means, then what the runs say without a law (paired gaps, local multipliers),
  // then the laws.
  out.push(`### ${lTable.variants.join(', ')} on ${lTable.sizes.length} sizes`, '',
    `| size | N | ${lTable.variants.join(' | ')} |`, `|---|---|${lTable.variants.map(() => '---').join('|')}|`);
  for (const row of lTable.sizes) out.push(`| ${row.preset} | ${count(row.params)} | ${lTable.variants.map((v) => pm(row.cells.get(v))).join(' | ')} |`);
  const fits = ladder.fits ? fitReports(ladder.fits) : [];
  const laws = multipliers(fits);
  const comparisons = pairedComparisons(fits, laws);
  const cellText = (z) => (z ? `${signed(z.gap, 3)}${z.paired && Number.isFinite(z.paired.se) ? ` ± ${z.paired.se.toFixed(3)}` : ''}${z.complete ? '' : ' (pairs incomplete)'}` : '–');
  const localText = (c) => (!c.identified ? 'none'
    : `${c.better ? '' : '1 / '}${c.factor.toFixed(2)}×${c.interval ? ` [${c.interval[0].toFixed(2)}, ${c.interval[1].toFixed(2)}]` : ''} (${c.sizesPooled} size${c.sizesPooled === 1 ? '' : 's'}, ${c.sizesInside} inside)`);
  out.push('', `**Paired gaps by size** (N of the reference's runs; mean over pairs ± its s.e.) and the local multiplier (no law: the`,
    `compute at which the reference's curve, a monotone cubic through its sizes, reaches the variant's loss, pooled with`,
    `precision weights over every size both ran; ${Math.round(100 * (comparisons[0]?.confidence ?? 0.95))}% paired bootstrap over seeds, widened for their degrees of freedom; "1 / m×" means the variant needs m× more compute):`, '',
    `| comparison | ${lTable.sizes.map((r) => r.preset).join(' | ')} | local multiplier | leaving one size out |`,
    `|---|${lTable.sizes.map(() => '---').join('|')}|---|---|`);
  for (const c of comparisons) {
    // A size's column is the comparison's size of nearly the same N: the reference's N differs a little between
    // arms (QK-norm's vectors), the ladder's widths by far more.
    const bySize = lTable.sizes.map((row) => c.sizes.find((z) => Math.abs(z.params / row.params - 1) < 0.1) ?? null);
    out.push(`| ${c.variant} − ${c.reference} | ${bySize.map(cellText).join(' | ')} | ${localText(c)} | ${c.jackknife ? `${c.jackknife[0].toFixed(2)}–${c.jackknife[1].toFixed(2)}` : ''} |`);
  }
  if (!comparisons.length) out.push('| (the stored fit has no comparisons) |');
  // The verdict, one headline per comparison, as `gammalab fit` prints it and the dashboard shows it.
  const verdicts = comparisons.filter((c) => c.verdict);
  if (verdicts.length) {
    out.push('', '**Verdict** (the coordinator\'s stored fit, as `gammalab fit` prints it):', '');
    for (const c of verdicts) {
      out.push(`- ${c.verdict.headline}`);
      for (const line of c.verdict.details) out.push(`  - ${line}`);
    }
  }

  out.push('', `Fitted laws (the coordinator's stored fit v${ladder.fits?.version ?? '–'}, ${fits[0]?.bootstrap?.used ?? 0} bootstrap resamples of ${fits[0]?.bootstrap?.unit || 'the runs within each size'}, ${Math.round(100 * (fits[0]?.confidence ?? 0.95))}% intervals):`, '',
    '| law | variant | parameters | data |', '|---|---|---|---|');
  for (const report of fits) for (const g of report.groups) out.push(lawLine(report, g));
  out.push('', 'Compute multipliers from the law (law c, E and α shared between the reference and the variant; over the compute range the runs cover):', '');
  for (const m of laws) {
    const profile = m.profile ? `; the fit's objective cannot tell ${m.profile.lo.toFixed(2)} from ${m.profile.hi.toFixed(2)} apart${m.profile.open ? ' and beyond' : ''}` : '';
    out.push(`- **${m.variant}** over ${m.baseline}: ${m.atBound ? 'not identified (at its bound)' : multiplierText(m)}, for C from ${sci(m.range[0])} to ${sci(m.range[1])} FLOPs${profile}`);
  }
  if (!laws.length) out.push('- none: the stored fit has no law-c multiplier');
  const verdict = cliBlock(fitText, 'verdict:');
  const warnings = cliBlock(fitText, 'warnings:');
  out.push('', 'The verdict, as `gammalab fit` prints it for this sweep (the local multiplier first, the law\'s after it, with',
    'its limits in words):', '', '```', ...(verdict.length ? verdict : ['(gammalab fit printed no verdict)']), '```', '');
  if (warnings.length) out.push('Its warnings:', '', ...warnings.map((w) => `- ${w}`), '');
  out.push(`**Power of this design** (\`gammalab plan configs/sweeps/study-ladder.yaml --noise-from\` this run's own runs):`, '',
    ...power.map((l) => `> ${l}`), '',
    `![Final loss against compute, with the fitted laws](${figures('ladder', 'scaling-compute')})`,
    `![Final loss against size, with the fitted laws](${figures('ladder', 'scaling-params')})`, '');

  // The gap against tokens (§4: "the gap widening during training"), from the runs' evaluations.
  const overTraining = [['unified', 'baseline'], ['unified', 'qknorm'], ['unified', 'dnp_novec'], ['none', 'baseline']]
    .filter(([v, r]) => lTable.variants.includes(v) && lTable.variants.includes(r))
    .map(([v, r]) => ({ variant: v, reference: r, sizes: gapOverTraining(ladder, lRuns, v, r) }));
  const FRACTIONS = [0.25, 0.5, 0.75, 1];
  out.push('**The gap against tokens** (paired, mean over seeds, at the evaluation nearest each share of training;',
    'the paper reports unified\'s gain widening during training):', '',
    `| comparison | size | ${FRACTIONS.map((f) => `${f * 100}%`).join(' | ')} |`, `|---|---|${FRACTIONS.map(() => '---').join('|')}|`);
  for (const c of overTraining) {
    for (const g of c.sizes) out.push(`| ${c.variant} − ${c.reference} | ${g.preset} | ${FRACTIONS.map((f) => signed(gapAt(g, f), 3)).join(' | ')} |`);
  }
  out.push('');

  // The claims, by fixed rules
  out.push('### The paper\'s claims beside this run', '',
    `Rules: a difference "agrees" or "disagrees" in sign only when resolved (the rule above); a multiplier`,
    `agrees when its interval holds the paper's ${PAPER.multiplier.join('–')}×.`, '',
    '| claim (paper) | this run | verdict |', '|---|---|---|');
  const signVerdict = (d, wantPositive) => (!d ? 'not measured' : !d.resolved ? 'not resolved (within noise)'
    : (d.delta > 0) === wantPositive ? 'agrees in sign' : 'disagrees');
  // Per ladder size, a comparison's paired gap as a difference with its s.e. (the rules above).
  const gapsOf = (variant, reference) => {
    const c = comparisons.find((x) => x.variant === variant && x.reference === reference);
    return (c?.sizes ?? []).map((z) => ({ delta: z.gap, se: z.paired?.se ?? NaN, resolved: pairedResolved(z.gap, z.paired?.se ?? NaN, z.pairs) }));
  };
  const none = aDiff.get('none');
  out.push(claimRow(`removing every scale vector costs +${PAPER.noneGap} in loss at the same LR, +${PAPER.noneGapRetuned} after retuning it (§2); here every variant runs at its own tuned LR`,
    `${none ? `${diffText(none)} at ${aRow.preset} (ablation); ` : ''}paired, per ladder size: ${gapsOf('none', 'baseline').map((d) => signed(d.delta, 3)).join(', ') || '–'}`,
    signVerdict(none, true)));
  const perSize = gapsOf('unified', 'baseline');
  const lower = perSize.filter((d) => d.delta < 0);
  const resolvedLower = lower.filter((d) => d.resolved);
  const resolvedHigher = perSize.filter((d) => d.delta > 0 && d.resolved);
  out.push(claimRow('unified has a lower final loss than baseline at every size (§4.2)',
    `lower at ${lower.length} of ${perSize.length} sizes, paired (resolved at ${resolvedLower.length}; resolved higher at ${resolvedHigher.length})`,
    !perSize.length ? 'not measured' : lower.length === perSize.length ? (resolvedLower.length === perSize.length ? 'agrees' : 'same direction, not resolved at every size')
      : resolvedHigher.length ? 'disagrees' : 'not at every size'));
  // The multiplier claim is judged on the local multiplier (what the runs identify); the law's is shown beside it.
  const local = comparisons.find((c) => c.variant === 'unified' && c.reference === 'baseline');
  const mu = laws.find((m) => m.variant === 'unified' && m.baseline === 'baseline');
  let muVerdict = 'not measured';
  if (local?.identified) {
    const iv = local.interval;
    const [lo, hi] = !iv ? [NaN, NaN] : local.better ? iv : [1 / iv[1], 1 / iv[0]];
    const holds = lo <= PAPER.multiplier[0] && hi >= PAPER.multiplier[1];
    const versusPaper = holds ? 'holds the paper\'s value' : lo > PAPER.multiplier[1] ? 'above the paper\'s value'
      : hi < PAPER.multiplier[0] ? 'below the paper\'s value' : 'overlaps the paper\'s range';
    muVerdict = !iv ? 'not resolved (no interval)'
      : lo <= 1 && hi >= 1 ? `not resolved: the interval includes 1× (and ${versusPaper})`
        : !local.better ? 'disagrees (unified needs more compute)' : holds ? 'agrees (the interval holds the paper\'s value)' : `same direction, ${versusPaper}`;
  }
  out.push(claimRow(`unified needs ${PAPER.multiplier.join('–')}× less compute (fitted laws, §4.2)`,
    `local: ${local ? localText(local) : '–'}; from the law: ${mu ? (mu.atBound ? 'not identified' : multiplierText(mu)) : '–'}`, muVerdict));
  // The controls that isolate the claim: QK-norm (the baseline normalising q and k, as unified's DNP does) and
  // dnp_novec (unified's placement without its scale vectors: what is left is the vectors' own gain).
  const CONTROLS = {
    qknorm: 'unified\'s gain is more than QK-norm\'s (not a claim of the paper: the control a reviewer asks for first)',
    dnp_novec: 'unified\'s gain is the scale vectors\' own: unified over its own placement without them (dnp_novec)',
  };
  for (const control of comparisons.filter((c) => c.variant === 'unified' && c.reference !== 'baseline')) {
    out.push(claimRow(CONTROLS[control.reference] ?? `unified over the control ${control.reference}`,
      `unified over ${control.reference}, local: ${localText(control)}`,
      !control.identified || !control.interval ? 'not measured' : control.includesOne ? 'not resolved: the interval includes 1×'
        : control.better ? 'unified gains beyond the control' : 'the control does better'));
  }
  for (const [v, what] of [['hg', 'HG (a vector per branch)'], ['dnp', 'DNP (dual placement with a Norm)'], ['or', 'OR (magnitude-direction)'], ['iwd', 'IWD (decay on Input-Norm vectors)'], ['unified', 'unified']]) {
    const d = aDiff.get(v);
    out.push(claimRow(`${what} gains over baseline on one size (§4.1)`, d ? `${diffText(d)} at ${aRow.preset}` : '–', signVerdict(d, false)));
  }
  // Widening: the variant's lead (a negative gap) at the end larger than at a quarter of training.
  const ub = overTraining.find((c) => c.variant === 'unified' && c.reference === 'baseline');
  if (ub?.sizes.length) {
    const widened = ub.sizes.filter((g) => gapAt(g, 1) < gapAt(g, 0.25));
    out.push(claimRow('unified\'s gain over baseline widens during training (§4.2)',
      `the paired gap at the end is wider than at 25% of training at ${widened.length} of ${ub.sizes.length} sizes (${ub.sizes.map((g) => `${signed(gapAt(g, 0.25), 3)} → ${signed(gapAt(g, 1), 3)}`).join(', ')})`,
      widened.length === ub.sizes.length ? 'agrees' : widened.length === 0 ? 'disagrees: the gap narrows at every size' : `at ${widened.length} of ${ub.sizes.length} sizes`));
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

  writeBlock(pageFile, BEGIN, END, out);
  console.log(`${values.page}: the study part rewritten (${aRuns.length} ablation runs, ${lRuns.length} ladder runs)`);
}

main();
