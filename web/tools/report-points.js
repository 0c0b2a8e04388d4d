// A report's main-stage runs as the CSV `gammalab fit --points` and `gammalab plan --noise-from` read
// (core/scaling/csv_points.h): params, tokens, compute, loss, group (the variant) and seed, one row per
// succeeded run with a final loss. Tune runs are left out, as the fits leave them out.
//   node web/tools/report-points.js REPORT.html > points.csv
import { reportData } from './report-file.js';
import { studyRuns } from '../series.js';

const [file] = process.argv.slice(2);
if (!file) {
  console.error('usage: node web/tools/report-points.js REPORT.html > points.csv');
  process.exit(2);
}
const data = reportData(file);
const seedOf = new Map(data.jobs.map((j) => [j.id, JSON.parse(j.config_json).seed]));
const rows = ['params,tokens,compute,loss,group,seed'];
for (const r of studyRuns(data.runs)) {
  const seed = seedOf.get(r.id);
  if (r.state !== 'succeeded' || !Number.isFinite(r.loss) || !Number.isInteger(seed)) continue;
  // A variant name is a YAML key the sweep accepted; a comma or quote in it would break the CSV's columns.
  if (!/^[\w.+-]+$/.test(r.variant)) throw new Error(`${file}: run ${r.id}: variant '${r.variant}' cannot be a CSV field`);
  rows.push([r.params, r.tokens, r.compute, r.loss, r.variant, seed].join(','));
}
if (rows.length === 1) throw new Error(`${file}: no succeeded main-stage run with a final loss and a seed`);
process.stdout.write(`${rows.join('\n')}\n`);
