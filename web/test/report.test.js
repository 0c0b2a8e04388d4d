// Browser test of `gammalab report`: a real gammalab-server with two real gammalab-worker processes running
// real gammalab-train children trains a small sweep (3 sizes x 2 variants, so that the coordinator stores a
// scaling-law fit), the real CLI writes the report, and Debian's chromium, driven by playwright-core, opens
// the file from disk (file://) with every network request refused. Its charts must be drawn, the sweep's
// hostile name shown as text, and nothing blocked by the page's own policy.
// Needs GAMMALAB_BUILD (default ../build, relative to web/) as test/dashboard.test.js does.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createInterface } from 'node:readline';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { corpus } from './corpus.js';
import { createTokens } from './tokens.js';

const run = promisify(execFile);
const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const build = resolve(webDir, process.env.GAMMALAB_BUILD || '../build');
const serverBin = join(build, 'server', 'gammalab-server');
const cliBin = join(build, 'cli', 'gammalab');
const workerBin = join(build, 'worker', 'gammalab-worker');
const trainBin = resolve(webDir, process.env.GAMMALAB_TRAIN || join(build, 'worker', 'trainer', 'gammalab-train'));
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const resultsDir = join(webDir, 'test-results');
const TIMEOUT = 60_000;
const RUN_TIMEOUT = 240_000;  // for the training jobs to finish on two busy cores

const STEPS = 20;
const PRESETS = ['tiny-0.03m', 'tiny-0.05m', 'tiny-0.1m'];
const VARIANTS = ['baseline', 'unified'];
// Markup, an end tag for the data's <script> and a comment opener: all must stay text.
const NAME = `<img src=x onerror="window.__pwned=1"></script><!--&amp;'"`;

let tmp;
let tokens;
let server;
let ports;
let browser;
const workers = [];
const logs = new Map();

function keepLog(name, stream) {
  logs.set(name, '');
  stream.on('data', (d) => logs.set(name, (logs.get(name) + d).slice(-4000)));
}

const logTails = () => [...logs].map(([name, text]) => `--- ${name}\n${text.slice(-1500)}`).join('\n');

async function cli(...args) {
  const { stdout } = await run(cliBin, ['--server', `127.0.0.1:${ports.grpc_port}`, '--token-file', tokens.userFile, ...args], { encoding: 'utf8' });
  return stdout;
}

async function api(path) {
  const res = await fetch(`http://127.0.0.1:${ports.http_port}${path}`, { headers: { Authorization: `Bearer ${tokens.user}` } });
  return { status: res.status, body: await res.json() };
}

async function poll(what, fn, timeout = TIMEOUT) {
  const end = Date.now() + timeout;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${logTails()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((res) => child.once('exit', res));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

before(async () => {
  for (const [what, path] of [['gammalab-server', serverBin], ['gammalab CLI', cliBin], ['gammalab-worker', workerBin],
    ['gammalab-train', trainBin], ['chromium', chromiumPath]]) {
    assert.ok(existsSync(path), `${what} not found at ${path} (set GAMMALAB_BUILD / GAMMALAB_TRAIN / CHROMIUM_PATH)`);
  }
  tmp = mkdtempSync(join(tmpdir(), 'gammalab-report-'));
  mkdirSync(resultsDir, { recursive: true });
  mkdirSync(join(tmp, 'data'));
  writeFileSync(join(tmp, 'corpus.txt'), corpus(200_000, 11));
  await run(trainBin, ['prepare', '--input', join(tmp, 'corpus.txt'), '--out', join(tmp, 'data', 'r'),
    '--tokenizer', 'byte', '--val-fraction', '0.05']);
  tokens = await createTokens(serverBin, join(tmp, 'x.db'), tmp);
  server = spawn(serverBin, ['--listen', '127.0.0.1:0', '--http', '127.0.0.1:0', '--db', join(tmp, 'x.db'),
    '--shared-root', join(tmp, 'shared'), '--fit-bootstrap', '50'], { stdio: ['ignore', 'pipe', 'pipe'] });
  keepLog('gammalab-server', server.stderr);
  const exited = new Promise((_, reject) => server.once('exit', (code) => reject(new Error(`gammalab-server exited (${code}):\n${logTails()}`))));
  exited.catch(() => {});
  const lines = createInterface({ input: server.stdout });
  ports = JSON.parse(await Promise.race([new Promise((res) => lines.once('line', res)), exited]));
  for (const i of [0, 1]) {
    const worker = spawn(workerBin, ['--coordinator', `127.0.0.1:${ports.grpc_port}`, '--slots', '1', '--trainer', trainBin,
      '--shared-root', join(tmp, 'shared'), '--data-dir', join(tmp, 'data'), '--hostname', `report-worker-${i}`,
      '--poll-interval-ms', '200', '--token-file', tokens.workerFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    keepLog(`report-worker-${i}`, worker.stderr);
    workers.push(worker);
  }
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
});

after(async () => {
  await browser?.close().catch(() => {});
  await Promise.all(workers.map((w) => stop(w)));
  await stop(server);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('a report file opens offline with its charts drawn, the stored fit, and database text as text', { timeout: RUN_TIMEOUT + 4 * TIMEOUT }, async () => {
  const file = join(tmp, 'sweep.yaml');
  writeFileSync(file, `name: '${NAME.replace(/'/g, "''")}'
base:
  model: {preset: tiny-0.03m}
  optim: {lr: 3e-3}
  data: {train: r/train.bin, val: r/val.bin}
  batch_tokens: 1024
  steps: ${STEPS}
  log_every: 5
  eval_every: ${STEPS}
  threads: 1
  device: cpu
axes:
  grid:
    model.preset: [${PRESETS.join(', ')}]
    scale.variant: [${VARIANTS.join(', ')}]
`);
  assert.match(await cli('submit', file), /6 job\(s\) queued/);
  const sweep = (await api('/api/sweeps')).body.find((s) => s.name === NAME);
  assert.ok(sweep, 'the sweep is stored under its name');
  // The coordinator refits once jobs succeed: wait for the version over all six runs (law n and law c).
  const fits = await poll('the stored fit of all six runs', async () => {
    const r = await api(`/api/sweeps/${sweep.id}/fits`);
    return r.status === 200 && r.body.fits[0]?.job_ids?.length === 6 ? r.body : null;
  }, RUN_TIMEOUT);
  assert.deepEqual(fits.fits.map((f) => f.law), ['n', 'c']);
  const runs = (await api(`/api/sweeps/${sweep.id}/runs`)).body;
  assert.equal(runs.filter((r) => r.state === 'succeeded').length, 6);

  const out = join(tmp, 'report');
  const printed = await cli('report', sweep.id, '--out', out, '--web-root', webDir);
  assert.match(printed, /\(6 jobs\) written to /);
  assert.deepEqual(readdirSync(out), ['index.html']);

  // Offline, and every request that is not the file itself refused and counted.
  const context = await browser.newContext({ offline: true, viewport: { width: 1300, height: 1000 } });
  const requests = [];
  await context.route((url) => url.protocol !== 'file:', (route) => {
    requests.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text()); });
  await page.goto(pathToFileURL(join(out, 'index.html')).href);
  await page.waitForFunction(() => document.body.dataset.ready, undefined, { timeout: TIMEOUT });
  assert.equal(await page.evaluate(() => document.body.dataset.ready), '1', await page.textContent('#error'));

  // The loss charts: one uPlot canvas each, one series per job, every point of the downsampled curves.
  const figure = (id, attr) => page.$eval(id, (el, a) => el.dataset[a], attr);
  for (const id of ['#chart-train', '#chart-val']) {
    assert.equal(await page.locator(`${id} canvas`).count(), 1, id);
    assert.equal(await figure(id, 'series'), '6', id);
  }
  assert.equal(await figure('#chart-train', 'points'), String(6 * (STEPS / 5)));
  assert.equal(await figure('#chart-val', 'points'), '6');
  // Drawn for real: pixels of both variants' colours (series.js: baseline #0072B2, unified #009E73) on the canvas.
  const inked = await page.$eval('#chart-train canvas', (canvas) => {
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    const near = (i, [r, g, b]) => Math.abs(data[i] - r) + Math.abs(data[i + 1] - g) + Math.abs(data[i + 2] - b) < 60 && data[i + 3] > 200;
    const counts = [0, 0];
    for (let i = 0; i < data.length; i += 4) {
      if (near(i, [0, 114, 178])) counts[0]++;
      if (near(i, [0, 158, 115])) counts[1]++;
    }
    return counts;
  });
  assert.ok(inked[0] > 100 && inked[1] > 100, `line pixels per variant: ${inked}`);

  // The scale-vector norms per role (the paper's Theorem 2.3): Input-Norm vectors in every job of these two
  // variants, and Output-Norm vectors too (γ_fin in both, an Output-Norm by default; unified's γ_a as well).
  assert.equal(await figure('#chart-scale-rms-input', 'series'), '6');
  assert.equal(await figure('#chart-scale-rms-input', 'points'), String(6 * (STEPS / 5)));
  assert.equal(await figure('#chart-scale-rms-output', 'series'), '6');
  assert.equal(await page.locator('#chart-scale-rms-input canvas').count(), 1);

  // The scaling law: the runs per variant and the stored fit's curves, against N and against C (law c).
  for (const id of ['#chart-scaling-params', '#chart-scaling-compute']) {
    assert.equal(await page.locator(`${id} canvas`).count(), 1, id);
    assert.equal(await figure(id, 'points'), '6', id);
  }
  assert.equal(await figure('#chart-scaling-params', 'fits'), '2', 'law n: a curve per variant over N');
  assert.equal(await figure('#chart-scaling-compute', 'fits'), '2', 'law c: a curve per variant over C');
  const fitsText = await page.textContent('#fits');
  assert.match(fitsText, /law n.*law c/s);
  assert.match(fitsText, /compute multiplier of unified over baseline/);
  const multiplier = JSON.parse(fits.fits[1].report_json).multipliers[0];
  assert.equal(multiplier.variant, 'unified');
  // The runs' own answer first: unified against baseline, size by size (one seed here: a gap, no pairs to pool).
  const comparison = JSON.parse(fits.fits[1].report_json).comparisons[0];
  const shown = page.locator('#multipliers .comparison[data-variant="unified"][data-reference="baseline"]');
  assert.equal(await shown.count(), 1);
  assert.equal(await shown.locator('table.gaps tbody tr').count(), comparison.sizes.length);
  const gaps = await shown.locator('table.gaps tbody tr').evaluateAll((rows) => rows.map((r) => Number(r.dataset.gap)));
  assert.deepEqual(gaps.map((g) => g.toFixed(6)), comparison.sizes.map((z) => Number(z.pairs > 0 ? z.paired_mean : z.gap.value).toFixed(6)));
  assert.ok(await page.$eval('#multipliers', (el) => el.firstElementChild.classList.contains('comparison')),
    'the law-free comparison comes before the law-based multiplier');
  // One seed: every run pairs with the other group's run of its size, one pair each, so no paired s.e. ("± –") and
  // no interval (a bootstrap over sizes redraws the ladder's nodes; the CLI gives none either).
  assert.equal(await shown.locator('caption').textContent(), 'unified − baseline by size (paired: runs sharing a seed)', JSON.stringify(comparison));
  assert.deepEqual(await shown.locator('thead th').allTextContents(), ['N', 'pairs', 'paired gap', 'm_local', 'note']);
  const cells = await shown.locator('table.gaps tbody tr').evaluateAll((rows) => rows.map((r) => [...r.cells].map((td) => td.textContent)));
  for (const [i, z] of comparison.sizes.entries()) {
    const gap = Number(z.paired_mean);
    const local = Number(z.local_multiplier.value);
    assert.deepEqual(cells[i], [cells[i][0], '1', `${gap > 0 ? '+' : ''}${gap.toFixed(4)} ± –`, local.toFixed(2),
      z.inside ? '' : "outside baseline's range"], JSON.stringify(z));
  }
  // One seed: no interval for the local multiplier, so the law's is the verdict's estimator (named in it), and the
  // page says the stored verdict's sentences as they are.
  const verdict = JSON.parse(fits.fits[1].report_json).verdicts.find((v) => v.variant === 'unified');
  assert.notEqual(verdict.estimator, 'local multiplier', 'one seed: the local multiplier has no interval');
  assert.equal(await shown.locator('.local .big').textContent(), verdict.headline);
  assert.match(verdict.headline, verdict.estimator === 'law'
    ? /^unified (reaches baseline's loss with [\d.]+× less compute|needs [\d.]+× more compute than baseline) .*\(law c, /
    : /^unified: no multiplier over baseline/);
  assert.deepEqual(await shown.locator('.local .detail').allTextContents(), verdict.details);
  assert.equal(await shown.locator('.multiplier').count(), 0, 'one headline per comparison');
  // The fits' warnings stay in view.
  for (const w of fits.fits.flatMap((f) => JSON.parse(f.report_json).warnings)) assert.ok(fitsText.includes(w), w);

  // The jobs table: every job with the final val loss the API reports.
  assert.equal(await page.locator('#jobs tbody tr').count(), 6);
  for (const r of runs) {
    const text = await page.textContent(`#jobs tbody tr[data-job-id="${r.id}"]`);
    assert.ok(text.includes(r.final_val_loss.toFixed(4)), `${r.name}: ${text}`);
    assert.ok(text.includes(`${STEPS} / ${STEPS}`), text);
  }
  assert.equal(await page.locator('#study tbody tr').count(), 3, 'one study row per size');

  // The hostile name is shown as written, and nothing of it ran or became an element.
  assert.equal(await page.textContent('#sweep-name'), NAME);
  assert.equal(await page.title(), `${NAME} · gammalab report`);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.equal(await page.$$eval('img, iframe, object, embed', (els) => els.length), 0);
  assert.ok((await page.textContent('#source')).includes('steps: 20'));

  assert.deepEqual(requests, [], 'the report asked for nothing beyond its own file');
  assert.deepEqual(errors, [], 'no error, and no Content-Security-Policy violation, in the console');
  await page.screenshot({ path: join(resultsDir, 'report.png'), fullPage: true });
  await page.locator('#study-card').screenshot({ path: join(resultsDir, 'report-study.png') });
  await context.close();
});
