// PNG figures of a `gammalab report` page, for docs/: each chart of the report (its <figure class="chart">)
// as one file, taken by headless Chromium (playwright-core) from the report file itself, offline.
//   node web/tools/report-figures.js REPORT_DIR/index.html OUT_DIR [--width 1300] [--scale 2]
// Writes OUT_DIR/NAME.png per chart (NAME: the figure's id without "chart-", e.g. train.png, val.png,
// scaling-params.png, scaling-compute.png, tune.png) and prints each path. CHROMIUM_PATH names the browser
// (default /usr/bin/chromium). Exits non-zero when the page reports an error or draws no chart.
import { mkdirSync, existsSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { width: { type: 'string', default: '1300' }, scale: { type: 'string', default: '2' } },
});
if (positionals.length !== 2) {
  console.error('usage: node web/tools/report-figures.js REPORT.html OUT_DIR [--width PX] [--scale N]');
  process.exit(2);
}
const [report, outDir] = positionals.map((p) => resolve(p));
const width = Number(values.width);
const scale = Number(values.scale);
if (!existsSync(report)) throw new Error(`${report}: no such file`);
if (!(Number.isInteger(width) && width >= 400 && width <= 4000)) throw new Error(`--width: expected 400 to 4000 pixels, got ${values.width}`);
if (!(scale >= 1 && scale <= 4)) throw new Error(`--scale: expected 1 to 4, got ${values.scale}`);
mkdirSync(outDir, { recursive: true });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
});
try {
  // Offline, as the report is meant to be read; light colours, as figures in docs are.
  const context = await browser.newContext({ offline: true, viewport: { width, height: 1000 }, deviceScaleFactor: scale, colorScheme: 'light' });
  await context.route((url) => url.protocol !== 'file:', (route) => route.abort());
  const page = await context.newPage();
  await page.goto(pathToFileURL(report).href);
  await page.waitForFunction(() => document.body.dataset.ready, undefined, { timeout: 60_000 });
  if (await page.evaluate(() => document.body.dataset.ready) !== '1') throw new Error(`the report failed: ${await page.textContent('#error')}`);
  const ids = await page.$$eval('figure.chart', (els) => els.filter((e) => e.id && e.querySelector('canvas') && e.offsetParent).map((e) => e.id));
  if (!ids.length) throw new Error('the report draws no chart');
  for (const id of ids) {
    const file = join(outDir, `${id.replace(/^chart-/, '')}.png`);
    await page.locator(`#${id}`).screenshot({ path: file });
    console.log(file);
  }
} finally {
  await browser.close();
}
