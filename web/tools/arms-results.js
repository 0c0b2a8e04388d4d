// The arms part of docs/results.md, written from the `gammalab report` of a `make arms` run (scripts/arms.sh;
// configs/sweeps/arms-2026.yaml): the LR each arm's tune stage picked, and every arm at one size against the
// baseline and against the QK-norm control, by the study's rules (web/tools/study-tables.js). Replaces the text
// between the page's "arms:begin" and "arms:end" markers (both must be there once).
//   node web/tools/arms-results.js --report A.html --minutes M --page docs/results.md
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setMeta, studyTable, studyRuns } from '../series.js';
import { count } from '../format.js';
import { reportData } from './report-file.js';
import { oneSizeRows, tuneSection, writeBlock } from './study-tables.js';

const BEGIN = '<!-- arms:begin (written by web/tools/arms-results.js from a `make arms` run; edits here are lost) -->';
const END = '<!-- arms:end -->';

const { values } = parseArgs({ options: { report: { type: 'string' }, minutes: { type: 'string' }, page: { type: 'string' } } });
for (const k of ['report', 'minutes', 'page']) {
  if (!values[k]) throw new Error(`--${k} is required (usage in the file's head)`);
}
const minutes = Number(values.minutes);
if (!(Number.isInteger(minutes) && minutes >= 0)) throw new Error(`--minutes: expected a whole number of minutes, got ${values.minutes}`);

// `make arms`: the LR picks and every arm at one size against the baseline and the QK-norm control.
function main() {
  const data = reportData(values.report);
  setMeta(data.meta);
  const runs = studyRuns(data.runs).filter((r) => r.state === 'succeeded');
  const row = studyTable(runs, 'loss').sizes[0];
  const failed = data.runs.filter((r) => r.state !== 'succeeded').length;
  const reused = data.jobs.filter((j) => j.reused_from).length;
  const machine = cpus();
  const out = [BEGIN, '', '## The 2026 arms at one size (`make arms`)', '',
    `Written from one run of \`make arms\` (${data.generated_at.slice(0, 10)}), ${minutes} minutes on this repository's machine`,
    `(${machine.length} cores of ${machine[0]?.model?.trim() || 'an unnamed CPU'}; two workers of one thread each) for its ${data.jobs.length} jobs${reused ? ` (${reused} reused by config hash)` : ''}${failed ? `; ${failed} did not succeed and are left out` : ''}:`,
    '`configs/sweeps/arms-2026.yaml`, every rival arm of docs/variants.md ("The 2026 arms") beside the baseline, the',
    'QK-norm control and unified, at the LR its own tune stage picked, 3 paired seeds, byte-level Brown. The rules',
    'are the study\'s above (paired by seed, "within noise" inside the 95% interval on Student\'s t). One size says',
    'nothing about scaling: an arm that leads here is a candidate for the ladder, not a result.', '',
    tuneSection(`Learning rates, at ${row?.preset ?? '?'}`, data.sweep), ''];
  for (const reference of ['baseline', 'qknorm']) {
    out.push(`### Every arm at ${row?.preset} against ${reference} (${count(row?.params ?? 0)} non-embedding parameters in the baseline, ${count(runs[0]?.tokens ?? 0)} tokens)`, '',
      `| arm | final val loss, mean ± s.e. (seeds) | − ${reference}, paired by seed (pairs) | − ${reference}, unpaired |`, '|---|---|---|---|');
    oneSizeRows(data, runs, reference, out);
    out.push('');
  }
  out.push(END);
  writeBlock(resolve(values.page), BEGIN, END, out);
  console.log(`${values.page}: the arms part rewritten (${runs.length} runs)`);
}

main();
