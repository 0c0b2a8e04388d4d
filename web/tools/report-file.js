// The data a `gammalab report` page inlines (cli/client/report_data.h), read back from the page's file by the
// tools that write docs from a report: the same JSON report.js draws, checked for its format.
import { readFileSync } from 'node:fs';

export function reportData(file) {
  const html = readFileSync(file, 'utf8');
  const m = html.match(/<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/);
  if (!m) throw new Error(`${file}: no report data (is it a gammalab report?)`);
  const data = JSON.parse(m[1]);
  if (data.format !== 1) throw new Error(`${file}: report data format ${data.format}, this tool reads format 1`);
  return data;
}
