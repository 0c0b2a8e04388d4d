// What each comparison's headline is read off, drawn on the scaling chart where it was made: against compute C,
// on the runs' final validation losses (what the fits use). The verdict (core/scaling/verdict.h) names the
// estimator of each comparison:
// - the local multiplier: the reference's mean final loss per size, joined by the monotone cubic the coordinator
//   reads it off (core/scaling/local_multiplier.h, sampled and stored with the fit), and at each size a level line
//   from the variant's mean loss at its compute to where that curve reaches the same loss. Its length in ln C is
//   ln m_local: to the right where the reference needs more compute for the variant's loss, to the left where less.
// - the law: the shared fit whose constant is the headline, L = E + A·C^-α with E and α common to both arms and
//   each arm its own A; the constant is the ratio of the two curves' compute at equal loss.
// One reference at a time: the study's baseline, or, with the baseline hidden in the legend, the first reference
// still shown, so that the level lines of one variant's points against two references never lie on each other.
import { fitCurve, logSpace } from './laws.js';

// The reading of the comparisons (comparisons.js pairedComparisons, with their law multipliers beside them) on the
// scaling chart of axis `xKey` and loss `lossKey`, with the variants in `hidden` left off:
// {lines: [{group, kind: 'curve' | 'reading' | 'shared', xs, ys, label}], reference, estimators, elsewhere},
// `elsewhere` saying why nothing is drawn on this chart when the headlines exist but are read on another.
export function headlineReadings(comparisons, { xKey, lossKey, hidden = [], baseline = 'baseline', range = null }) {
  const none = (elsewhere) => ({ lines: [], reference: null, estimators: [], elsewhere });
  const headlined = comparisons.filter((c) => c.verdict?.estimator);
  if (!headlined.length) return none(null);
  if (xKey !== 'compute') return none('the headline is read against compute: choose x = compute C to see it drawn');
  if (lossKey !== 'loss' && lossKey !== 'final_val_loss') {
    return none('the fits use each run\'s final validation loss: choose that loss to see the headline\'s reading');
  }
  const shown = headlined.filter((c) => !hidden.includes(c.variant) && !hidden.includes(c.reference));
  const reference = shown.some((c) => c.reference === baseline) ? baseline : shown[0]?.reference ?? null;
  const lines = [];
  const estimators = new Set();
  for (const c of shown.filter((x) => x.reference === reference)) {
    const estimator = c.verdict.estimator;
    estimators.add(estimator);
    if (estimator === 'law') {
      const fit = c.laws.find((m) => m.sharedFit)?.sharedFit;
      if (!fit || !range) continue;
      const xs = logSpace(range[0] / 1.5, range[1] * 1.5);
      // Law c (L = E + A·C^-α) at each arm's A, as every law curve of the chart is drawn (laws.js fitCurve).
      const law = (A) => {
        const curve = fitCurve('c', { E: fit.E, alpha: fit.alpha, A }, 'compute');
        if (!curve) return xs.map(() => null);
        return xs.map((x) => {
          const y = curve(x);
          return Number.isFinite(y) && y > 0 ? y : null;
        });
      };
      lines.push({ group: reference, kind: 'shared', xs, ys: law(fit.A_baseline), label: `${reference}, shared fit with ${c.variant}` },
        { group: c.variant, kind: 'shared', xs, ys: law(fit.A_variant), label: `${c.variant}, shared fit with ${reference}` });
      continue;
    }
    if (!lines.some((l) => l.kind === 'curve' && l.group === reference)) {
      for (const curve of c.curves) {
        const keep = curve.xs.map((x, k) => x > 0 && curve.ys[k] > 0);
        lines.push({ group: reference, kind: 'curve', xs: curve.xs.filter((_, k) => keep[k]), ys: curve.ys.filter((_, k) => keep[k]),
          label: `${reference}'s curve through its sizes` });
      }
    }
    for (const z of c.sizes) {
      if (!z.local || !(z.variantCompute > 0) || !(z.variantLoss > 0)) continue;
      const reach = z.variantCompute * z.local.value;
      if (!(reach > 0) || !Number.isFinite(reach)) continue;
      lines.push({ group: c.variant, kind: 'reading', xs: [Math.min(z.variantCompute, reach), Math.max(z.variantCompute, reach)],
        ys: [z.variantLoss, z.variantLoss], label: `${c.variant} at N ${z.params}: m_local ${z.local.value.toFixed(2)}×` });
    }
  }
  return { lines, reference, estimators: [...estimators], elsewhere: null };
}

// The legend's sentence for what the reading draws, or why it is not drawn here.
export function headlineNote(reading) {
  if (reading.elsewhere) return reading.elsewhere;
  const parts = [];
  if (reading.estimators.includes('local multiplier')) {
    parts.push(`thin solid: ${reading.reference}'s mean loss per size, joined by the curve the local multiplier is read off; `
      + `level lines: at each size, from the variant's mean loss to where that curve reaches it (their length in C is m_local)`);
  }
  if (reading.estimators.includes('law')) {
    parts.push(`thin solid: the shared fit (common E and α) whose constant is the headline over ${reading.reference}`);
  }
  return parts.length ? `headline, as the verdict reads it: ${parts.join('; ')}` : '';
}
