// Benchmark (`make bench`, docs/perf.md): the dashboard over long runs, timed in headless Chromium against a real
// coordinator. Sweep "long": 100 finished jobs × 100,000 train-loss points each (10M points); sweep "short", the
// reference measured in the same run: 100 jobs × 1,000 points, what a downsampled chart draws anyway. For each:
//   first draw: from the navigation to the sweep's address until the train-loss chart has drawn every job
//               (the page's own clock, performance.now(), read at the next frame after the chart's draw);
//   hover:      the pointer moved to 9 places over the chart, one at a time: from each move until the frame
//               after the chart's readout changed (the median of the 9);
//   zoom redraw: a drag over the middle fifth of the chart, from the mouse-up until the chart is redrawn from
//               the points it has, and until it is redrawn again at full resolution from the API's answer.
// Prints each time and long / short. The database is made by bench_http_dashboard_fixture (through the store's
// own ingest path), once per run, in a temporary folder that is removed afterwards.
//   node web/tools/dashboard-draw.js --build BUILD [--jobs 100] [--points 100000] [--reference 1000] [--runs 3]
import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { parseArgs, promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { createTokens, signIn } from '../test/tokens.js';
import { median } from '../series.js';

const run = promisify(execFile);
// The dashboard this tool sits in, not the one the server binary was built beside: the figures are of these files.
const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    build: { type: 'string' }, jobs: { type: 'string', default: '100' }, points: { type: 'string', default: '100000' },
    reference: { type: 'string', default: '1000' }, runs: { type: 'string', default: '3' },
  },
});
if (!values.build) throw new Error('--build BUILD is required');
const build = resolve(values.build);
const [jobs, points, reference, runs] = ['jobs', 'points', 'reference', 'runs'].map((k) => {
  const n = Number(values[k]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${k}: expected a positive whole number, got ${values[k]}`);
  return n;
});

const tmp = mkdtempSync(join(tmpdir(), 'gammalab-draw-'));
const db = join(tmp, 'gammalab.db');
let server;
let browser;
try {
  const made = Date.now();
  const { stdout } = await run(join(build, 'bench', 'bench_http_dashboard_fixture'),
    ['--db', db, '--jobs', String(jobs), '--points', String(points), '--points', String(reference)],
    { encoding: 'utf8', maxBuffer: 1 << 20 });
  const [long, short] = stdout.trim().split('\n').map((l) => JSON.parse(l));
  console.log(`fixture: ${jobs} jobs × ${points} and × ${reference} points, made in ${((Date.now() - made) / 1000).toFixed(0)} s`);
  const tokens = await createTokens(join(build, 'server', 'gammalab-server'), db, tmp);
  server = spawn(join(build, 'server', 'gammalab-server'), ['--listen', '127.0.0.1:0', '--http', '127.0.0.1:0',
    '--db', db, '--shared-root', join(tmp, 'shared'), '--web-root', webDir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const ports = JSON.parse(await new Promise((res) => createInterface({ input: server.stdout }).once('line', res)));
  const base = `http://127.0.0.1:${ports.http_port}`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const context = await browser.newContext({ viewport: { width: 1300, height: 1000 } });
  await signIn(context, base, tokens.user);
  // Every draw of a chart bumps its data-draws (chart.js); the page notes the time of the frame after each.
  await context.addInitScript(() => {
    window.__draws = [];
    performance.setResourceTimingBufferSize(100_000);  // the zoom's answer is looked up by its resource timing
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.target.id !== 'chart-train') continue;
        const fig = r.target;
        requestAnimationFrame(() => window.__draws.push({ t: performance.now(), series: Number(fig.dataset.series), points: Number(fig.dataset.points) }));
      }
    }).observe(document, { attributes: true, attributeFilter: ['data-draws'], subtree: true });
  });

  async function time(sweep) {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${base}/#/sweeps/${sweep.sweep}`);
    await page.waitForFunction((n) => window.__draws.some((d) => d.series === n && d.points > 0), sweep.jobs, { timeout: 120_000, polling: 50 });
    const first = await page.evaluate((n) => window.__draws.find((d) => d.series === n && d.points > 0).t, sweep.jobs);
    await page.waitForTimeout(300);  // the page settles (no draw pending) before the zoom
    const over = await page.locator('#chart-train .u-over').boundingBox();
    const y = over.y + over.height / 2;
    await page.evaluate(() => {
      window.__hovers = [];
      window.addEventListener('mousemove', () => { window.__moved = performance.now(); }, { capture: true });
      new MutationObserver(() => {
        const moved = window.__moved;
        requestAnimationFrame(() => window.__hovers.push(performance.now() - moved));
      }).observe(document.getElementById('chart-train'), { attributes: true, attributeFilter: ['data-readout'] });
    });
    const hovers = [];
    for (let k = 1; k <= 9; k++) {
      const n = await page.evaluate(() => window.__hovers.length);
      await page.mouse.move(over.x + (over.width * k) / 10, y);
      await page.waitForFunction((m) => window.__hovers.length > m, n, { timeout: 10_000, polling: 10 });
      hovers.push(await page.evaluate((m) => window.__hovers[m], n));
    }
    const hover = median(hovers);
    await page.mouse.move(over.x + over.width * 0.4, y);
    await page.mouse.down();
    await page.mouse.move(over.x + over.width * 0.6, y + 2, { steps: 4 });
    const before = await page.evaluate(() => {
      window.__up = null;
      window.addEventListener('mouseup', () => { window.__up = performance.now(); }, { capture: true, once: true });
      return window.__draws.length;
    });
    const fetched = page.waitForResponse((r) => r.url().includes('from_step='), { timeout: 120_000 });
    await page.mouse.up();
    const answer = (await fetched).url();
    // The full-resolution redraw is the first draw after the zoomed range's answer arrived (the page's own
    // resource timing of that request); the zoom may draw more than once before it.
    const timings = await page.waitForFunction(([n, url]) => {
      const answered = performance.getEntriesByType('resource').find((e) => e.name === url);
      const after = window.__draws.slice(n);
      const full = answered && after.find((d) => d.t >= answered.responseEnd);
      return full ? [after[0].t - window.__up, full.t - window.__up] : null;
    }, [before, answer], { timeout: 120_000, polling: 50 });
    const [redraw, full] = await timings.jsonValue();
    if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    await page.close();
    return { first, hover, redraw, full };
  }

  // The two sweeps' loads alternate, so that neither gets all the loads of a cold browser (its first compile of
  // the page's modules) or all those of a warm one.
  const loads = { [long.points]: [], [short.points]: [] };
  for (let i = 0; i < runs; i++) {
    for (const sweep of [long, short]) loads[sweep.points].push(await time(sweep));
  }
  const results = Object.fromEntries(Object.entries(loads).map(([p, all]) =>
    [p, Object.fromEntries(['first', 'hover', 'redraw', 'full'].map((k) => [k, median(all.map((r) => r[k]))]))]));
  const ms = (x) => `${x < 100 ? x.toFixed(1) : x.toFixed(0)} ms`;
  console.log(`median of ${runs} page loads each, ${jobs} jobs per sweep:`);
  for (const [k, label] of [['first', 'first draw'], ['hover', 'hover readout'], ['redraw', 'zoom: redraw from the points it has'], ['full', 'zoom: redraw at full resolution']]) {
    const a = results[points][k];
    const b = results[reference][k];
    console.log(`  ${label}: ${ms(a)} at ${points} points per job, ${ms(b)} at ${reference}; ratio ${(a / b).toFixed(2)}`);
  }
} finally {
  await browser?.close().catch(() => {});
  server?.kill('SIGTERM');
  if (server) await new Promise((res) => server.once('exit', res));
  rmSync(tmp, { recursive: true, force: true });
}
