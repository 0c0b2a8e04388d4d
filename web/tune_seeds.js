// The tune card's seeds: each tune run's own final loss beside its group's mean (tune_report.js tuneSeries), so the
// card shows how far seeds scatter at a value against how far the values' means differ, the noise a pick has to
// beat. A run belongs to the curve whose config values (its group's key, the other tuned fields) it has.
import { jobConfig } from './config_columns.js';

const sameValue = (a, b) => a !== undefined && String(a) === String(b);

// Map curve label -> [[value, loss]] of the tune stage's succeeded runs with a finite final loss. `lossOf(job)`:
// the run's final loss, as the fits read it.
export function tuneSeedPoints(tune, jobs, lossOf) {
  const out = new Map((tune?.groups || []).map((g) => [g.label, []]));
  for (const job of jobs) {
    if (job.stage !== 'tune' || job.state !== 'succeeded') continue;
    const loss = lossOf(job);
    if (!Number.isFinite(loss)) continue;
    const config = jobConfig(job);
    const x = Number(config.get(tune.field));
    if (!Number.isFinite(x)) continue;
    const curve = tune.groups.find((g) => Object.entries(g.match || {}).every(([k, v]) => sameValue(config.get(k), v)));
    if (curve) out.get(curve.label).push([x, loss]);
  }
  return out;
}
