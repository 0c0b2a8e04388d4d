// The compute multipliers and the law-free comparisons of the stored fit reports, in the direction their
// sentences say them (the CLI's verdict's words).
import { num } from './series.js';

// One estimate of a stored report (core/scaling/fit_report.cpp estimate_json), its strings ("nan", "inf") as
// numbers. atBound: the value sits on the edge of its domain and has no interval (lo and hi are NaN); the CLI
// says "not identified (at bound)" for it, never a zero-width interval.
export function estimateOf(e) {
  return { value: num(e?.value), lo: num(e?.lo), hi: num(e?.hi), bounded: Boolean(e?.bounded), atBound: Boolean(e?.at_bound) };
}

// How a stored report's bootstrap resampled: its confidence, whether it ran, and whether it redrew seeds. A
// comparison's intervals come only from resampled seeds: resampling model sizes redraws a ladder's nodes
// (cli/fit_view.cpp seeds_resampled). A report without a unit is older than the choice: it resampled runs.
// requested and used: the resamples asked for and those whose refit converged, which the label beside each
// interval gives (the coordinator's automatic refit draws its own number, not the CLI's).
function bootstrapOf(report) {
  const used = report?.bootstrap?.used ?? 0;
  const requested = report?.bootstrap?.requested ?? used;  // (a report without it: as many as it used)
  const unit = report?.bootstrap?.unit || '';
  return { confidence: num(report?.confidence ?? 0.95), used, requested, unit, seeded: used > 0 && unit !== 'model sizes' };
}

// m is the baseline's compute over the variant's for the same loss: a sentence says it as "m× less compute"
// above 1 and "1/m× more" below, its interval (or jackknife range) turned round with it.
function direction(value) {
  const better = !(value < 1);
  return { better, factor: better ? value : 1 / value, turn: ([lo, hi]) => (better ? [lo, hi] : [1 / hi, 1 / lo]) };
}

// The compute multipliers of the stored fit reports (the constant of law c's shared-exponent fit): [{law,
// variant, baseline, value, lo, hi, bounded, atBound, range: [lo, hi], profile, better, factor, interval,
// includesOne, confidence, unit, bootstrapped, resamples: {used, requested}}], from every report that has them. interval is [lo, hi] in the
// sentence's direction, null when the bootstrap did not bound it; profile ({lo, hi, open}) the range of
// multipliers the joint fit cannot tell apart, open when it reaches the profile's grid edge.
export function multipliers(reports) {
  const out = [];
  for (const report of reports) {
    const { confidence, used, requested, unit } = bootstrapOf(report);
    for (const m of report.multipliers || []) {
      if (!m.constant) continue;
      const e = estimateOf(m.constant);
      const { better, factor, turn } = direction(e.value);
      const bounded = e.bounded && !e.atBound;
      out.push({
        law: report.law, variant: m.variant, baseline: m.baseline, value: e.value,
        lo: e.lo, hi: e.hi, bounded, atBound: e.atBound,
        range: (m.compute_range || []).map(num),
        profile: m.profile ? { lo: num(m.profile.lo), hi: num(m.profile.hi), open: Boolean(m.profile.open_lo || m.profile.open_hi) } : null,
        better, factor, interval: bounded ? turn([e.lo, e.hi]) : null, includesOne: bounded && e.lo <= 1 && e.hi >= 1,
        confidence, unit, bootstrapped: used > 0, resamples: { used, requested },
        // The joint fit the constant comes from (common E and alpha, each arm its A): values, or null.
        sharedFit: m.shared_fit ? Object.fromEntries(['E', 'alpha', 'A_baseline', 'A_variant']
          .map((k) => [k, estimateOf(m.shared_fit[k]).value])) : null,
      });
    }
  }
  return out;
}

// The law-free comparisons of the stored fit reports (the same in every law's report, so the first report that has
// them), rows for the study view: per variant and reference (the baseline, or a control such as qknorm) the pooled
// local multiplier in the direction its sentence says it (as the CLI's verdict: interval and jackknife turned
// round too), and per size the gap within pairs of runs that share a seed, the unpaired gap beside it where some
// run lacks its partner, and the local multiplier. `laws`: the law-based multipliers (multipliers() above) of the
// same variant over the same reference, to be shown beside the local one; `holdout` where the laws miss the
// largest size by more than the difference measured (the CLI then says the law-based figure is not supported).
export function pairedComparisons(reports, laws = multipliers(reports)) {
  // The report whose verdict has the law's check beneath it (law c's, where the coordinator stored laws n and c),
  // else any with comparisons: the comparisons themselves are the same in every law's report.
  const report = reports.find((r) => (r.comparisons || []).length && (r.multipliers || []).length)
    ?? reports.find((r) => (r.comparisons || []).length);
  if (!report) return [];
  const { confidence, seeded, used, requested } = bootstrapOf(report);
  return report.comparisons.map((c) => {
    const local = estimateOf(c.local_multiplier);
    const { better, factor, turn } = direction(local.value);
    const ladder = Boolean(c.ladder);
    const sizesInside = c.sizes_inside ?? 0;
    const holdoutError = num(c.holdout_error);
    const relativeEffect = num(c.relative_effect);
    const sizes = (c.sizes || []).map((z) => {
      const pairs = z.pairs ?? 0;
      const complete = Boolean(z.complete);
      const inside = Boolean(z.inside);
      const m = estimateOf(z.local_multiplier);
      const hasLocal = ladder && !Number.isNaN(m.value);
      return {
        params: num(z.params),
        tokens: num(z.tokens),
        pairs,
        // The seeds behind this size's interval: under three, the CLI says "too few seeds to bound" instead.
        seeds: pairs > 0 ? pairs : Math.min(z.baseline_runs ?? 0, z.variant_runs ?? 0),
        complete,
        // The figure a size is read by: the paired mean where runs pair up, else the plain difference of means.
        gap: pairs > 0 ? num(z.paired_mean) : num(z.gap?.value),
        paired: pairs > 0 ? { mean: num(z.paired_mean), se: num(z.paired_standard_error) } : null,
        unpaired: complete ? null : { mean: num(z.gap?.value), se: num(z.unpaired_standard_error) },
        local: hasLocal ? m : null,
        // Where the reading is taken: the variant's compute and mean loss here (the baseline's mean plus the gap).
        variantCompute: num(z.variant_compute),
        variantLoss: num(z.baseline_mean) + num(z.gap?.value),
        inside,
        // A local multiplier read off the reference's curve extended past its end segment.
        outside: hasLocal && !inside,
      };
    // By N, then by D: on a surface a size's budgets in increasing order, whatever order the report keeps them in.
    }).sort((a, b) => a.params - b.params || a.tokens - b.tokens);
    const withInterval = seeded && local.bounded;
    return {
      variant: c.variant,
      reference: c.baseline,
      paired: Boolean(c.paired),
      // Every run at every size has its partner (one seed each counts too); `paired` says the bootstrap drew pairs.
      complete: sizes.length > 0 && sizes.every((z) => z.complete && z.pairs > 0),
      anyPairs: sizes.some((z) => z.pairs > 0),
      ladder,
      confidence,
      seeded,
      resamples: { used, requested },
      sizesInside,
      // The sizes m_local is pooled over (every size both ran); reports stored before the support was fixed lack it.
      sizesPooled: c.sizes_pooled ?? sizesInside,
      identified: ladder && (c.sizes_pooled ?? sizesInside) > 0 && Number.isFinite(local.value),
      better,
      factor,
      value: local.value,
      interval: withInterval ? turn([local.lo, local.hi]) : null,
      includesOne: withInterval && local.lo <= 1 && local.hi >= 1,
      jackknife: c.jackknife ? turn([num(c.jackknife.lo), num(c.jackknife.hi)]) : null,
      holdout: holdoutError > relativeEffect ? { error: holdoutError, effect: relativeEffect } : null,
      laws: laws.filter((m) => m.variant === c.variant && m.baseline === c.baseline),
      // The verdict's sentences, stored with the fit (core/scaling/verdict.h); absent in fits stored before.
      verdict: (report.verdicts || []).find((v) => v.variant === c.variant && v.reference === c.baseline) ?? null,
      sizes,
      // The reference's curve(s) m_local is read off, as the coordinator sampled them: [{xs: C, ys: loss}].
      curves: (c.baseline_curves || []).map((t) => ({ xs: (t.compute || []).map(num), ys: (t.loss || []).map(num) })),
    };
  });
}
