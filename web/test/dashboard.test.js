// Browser test of the dashboard against a real gammalab-server: sweeps submitted with the real CLI, metric
// points written into the server's SQLite file (there are no workers here), Debian's chromium driven by
// playwright-core. Needs GAMMALAB_BUILD (default ../build, relative to web/) with gammalab-server and gammalab.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { chromium } from 'playwright-core';

const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const build = resolve(webDir, process.env.GAMMALAB_BUILD || '../build');
const serverBin = join(build, 'server', 'gammalab-server');
const cliBin = join(build, 'cli', 'gammalab');
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const resultsDir = join(webDir, 'test-results');
const TIMEOUT = 60_000;  // generous: the machine may be busy; every wait below polls

let tmp;
let server;
let serverLog = '';
let ports;
let context;
let page;
let db;
const pageErrors = [];
const requests = [];

function cli(...args) {
  return execFileSync(cliBin, ['--server', `127.0.0.1:${ports.grpc_port}`, ...args], { encoding: 'utf8' });
}

function sweepFile(name, text) {
  const file = join(tmp, `${name}.yaml`);
  writeFileSync(file, text);
  return file;
}

async function startServer() {
  server = spawn(serverBin, ['--listen', '127.0.0.1:0', '--http', '127.0.0.1:0', '--db', join(tmp, 'x.db'),
    '--shared-root', join(tmp, 'shared'), '--web-root', webDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  server.stderr.on('data', (d) => { serverLog += d; });
  const exited = new Promise((_, reject) => server.once('exit', (code) => reject(new Error(`gammalab-server exited (${code}): ${serverLog}`))));
  const firstLine = new Promise((res) => createInterface({ input: server.stdout }).once('line', res));
  const line = await Promise.race([firstLine, exited]);
  const event = JSON.parse(line);
  assert.equal(event.event, 'listening');
  return event;
}

// Polls the page until fn(arg) is truthy.
function waitInPage(fn, arg) {
  return page.waitForFunction(fn, arg, { timeout: TIMEOUT, polling: 100 });
}

const chartAttr = (id, attr) => page.$eval(id, (el, a) => el.dataset[a], attr);

// ---- direct writes behind the server's back (what a worker's metric relay would have stored)

function jobIds() {
  return db.prepare("SELECT j.id, j.name FROM jobs j JOIN sweeps s ON s.id = j.sweep_id WHERE s.name = 'web-test' ORDER BY j.ordinal").all();
}

function nameId(name) {
  db.prepare('INSERT OR IGNORE INTO metric_names(name) VALUES (?)').run(name);
  return db.prepare('SELECT id FROM metric_names WHERE name = ?').get(name).id;
}

// A loss curve L(step) = floor + 3 * (step / 10)^-0.4; `nanAt` steps store NULL (NaN).
function writeCurve(jobId, { from = 10, to = 100, floor = 2, nanAt = [], valAt = [50, 100] } = {}) {
  const insert = db.prepare('INSERT OR IGNORE INTO metrics(job_id, name_id, step, tokens, value) VALUES (?, ?, ?, ?, ?)');
  const train = nameId('train/loss');
  const val = nameId('val/loss');
  let last = null;
  db.transaction(() => {
    for (let step = from; step <= to; step += 10) {
      const v = floor + 3 * (step / 10) ** -0.4;
      insert.run(jobId, train, step, step * 4096, nanAt.includes(step) ? null : v);
      if (valAt.includes(step)) insert.run(jobId, val, step, step * 4096, v + 0.1);
      last = v;
    }
  })();
  return last;
}

function setJob(jobId, fields) {
  const keys = Object.keys(fields);
  db.prepare(`UPDATE jobs SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({ ...fields, id: jobId });
}

before(async () => {
  for (const [what, path] of [['gammalab-server', serverBin], ['gammalab CLI', cliBin], ['chromium', chromiumPath]]) {
    assert.ok(existsSync(path), `${what} not found at ${path} (set GAMMALAB_BUILD / CHROMIUM_PATH)`);
  }
  tmp = mkdtempSync(join(tmpdir(), 'gammalab-web-'));
  mkdirSync(resultsDir, { recursive: true });
  ports = await startServer();
  context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 1100 },
  });
  page = context.pages()[0] || (await context.newPage());
  page.on('pageerror', (e) => pageErrors.push(String(e)));
  // Chromium logs every 404 response (e.g. the optional /fits endpoint) as a console error: not ours.
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) pageErrors.push(m.text());
  });
  page.on('request', (r) => requests.push(r.url()));
});

after(async () => {
  await context?.close().catch(() => {});
  db?.close();
  if (server && server.exitCode === null) {
    const exited = new Promise((res) => server.once('exit', res));
    server.kill('SIGTERM');
    await exited;
  }
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test('dashboard: empty, then a sweep with live loss curves, jobs and the scaling law', { timeout: 5 * TIMEOUT }, async () => {
  const base = `http://127.0.0.1:${ports.http_port}`;

  // No sweeps yet.
  await page.goto(`${base}/`);
  await waitInPage(() => document.getElementById('live').dataset.state === 'live');
  await waitInPage(() => !document.getElementById('no-sweeps').hidden);
  assert.equal(await page.locator('#sweeps li').count(), 0);
  await page.screenshot({ path: join(resultsDir, 'dashboard-empty.png') });

  // A sweep arrives: the list updates through the event stream, without a reload.
  cli('submit', sweepFile('web-test', `name: web-test
base:
  model: {preset: tiny-0.03m}
  batch_tokens: 4096
  steps: 100
  log_every: 10
axes:
  grid:
    model.preset: [tiny-0.03m, tiny-0.1m]
    scale.variant: [baseline, none, unified]
`));
  await waitInPage(() => document.querySelectorAll('#sweeps li').length === 1);
  const sweepId = await page.$eval('#sweeps a', (a) => a.dataset.sweepId);
  await page.click('#sweeps a');
  await waitInPage(() => document.querySelectorAll('#jobs tbody tr').length === 6);
  assert.equal(await page.textContent('#sweep-name'), 'web-test');
  assert.equal(await page.locator('#jobs tbody tr[data-state="pending"]').count(), 6);
  assert.equal(await chartAttr('#chart-train', 'series'), '0', 'no points yet');
  assert.equal(await page.isVisible('#chart-train .empty'), true);

  // Four jobs ran to the end (one with a NaN point), one failed, one is running without points yet.
  db = new Database(join(tmp, 'x.db'));
  db.pragma('busy_timeout = 10000');
  const jobs = jobIds();
  assert.equal(jobs.length, 6);
  const now = Date.now();
  jobs.slice(0, 4).forEach((j, i) => {
    const last = writeCurve(j.id, { floor: 2 + 0.15 * (i % 3) - (i >= 3 ? 0.4 : 0), nanAt: i === 0 ? [50] : [] });
    setJob(j.id, { state: 'succeeded', attempt: 1, step: 100, tokens: 409600, last_loss: last, tokens_per_s: 52000 + i,
      started_ms: now, finished_ms: now });
  });
  writeCurve(jobs[4].id, { to: 60, nanAt: [60], valAt: [50] });
  setJob(jobs[4].id, { state: 'failed', attempt: 2, step: 60, tokens: 245760, last_loss: null,
    error: 'loss is NaN at step 60', started_ms: now, finished_ms: now });
  setJob(jobs[5].id, { state: 'running', attempt: 1, step: 0, started_ms: now });
  // The server's change counter moves only on its own writes: one real write (another sweep) wakes the page.
  const bulkBefore = requests.filter((u) => u.includes(`/api/sweeps/${sweepId}/metrics`)).length;
  assert.equal(bulkBefore, 1, 'the sweep was loaded once in bulk');
  cli('submit', sweepFile('web-test-2', 'name: web-test-2\nbase: {steps: 10, batch_tokens: 4096}\n'));
  await waitInPage(() => document.querySelectorAll('#sweeps li').length === 2);
  await waitInPage(() => document.getElementById('chart-train').dataset.series === '5');
  await waitInPage(() => document.querySelectorAll('#jobs tbody tr[data-state="succeeded"]').length === 4);
  assert.equal(await page.locator('#jobs tbody tr[data-state="failed"]').count(), 1);
  assert.match(await page.textContent('#jobs tbody tr[data-state="failed"]'), /loss is NaN at step 60/);
  assert.match(await page.textContent('#jobs tbody tr[data-state="running"]'), /0 \/ 100/);
  await waitInPage(() => document.getElementById('chart-val').dataset.series === '5');
  assert.equal(await chartAttr('#chart-train', 'points'), String(4 * 10 + 6));
  assert.equal(await page.locator('#chart-train canvas').count(), 1);
  assert.equal(await page.isVisible('#chart-train .empty'), false);

  // Scaling law: the four finished runs, one series per variant (baseline has two sizes); no fits served.
  await waitInPage(() => document.getElementById('chart-scaling').dataset.series === '3');
  assert.equal(await chartAttr('#chart-scaling', 'points'), '4');
  assert.equal(await chartAttr('#chart-scaling', 'fits'), '0');
  assert.equal(await page.textContent('#fits'), '');
  assert.match(await page.textContent('#scaling-legend'), /baseline \(2\).*none \(1\).*unified \(1\)/);

  // Live points of the running job: appended through ?after_step, never by reloading whole series.
  const lastTrain = writeCurve(jobs[5].id, { to: 50, floor: 1.9, valAt: [50] });
  setJob(jobs[5].id, { step: 50, tokens: 204800, last_loss: lastTrain, tokens_per_s: 48000 });
  cli('cancel', 'web-test-2');
  await waitInPage(() => document.getElementById('chart-train').dataset.series === '6');
  await waitInPage((id) => /50 \/ 100/.test(document.querySelector(`#jobs tr[data-job-id="${id}"]`).textContent), String(jobs[5].id));
  const pointsBefore = Number(await chartAttr('#chart-train', 'points'));
  writeCurve(jobs[5].id, { from: 60, to: 100, floor: 1.9, valAt: [100] });
  setJob(jobs[5].id, { step: 100, tokens: 409600 });
  cli('submit', sweepFile('web-test-3', 'name: web-test-3\nbase: {steps: 20, batch_tokens: 4096}\n'));
  await waitInPage((n) => Number(document.getElementById('chart-train').dataset.points) === n, pointsBefore + 5);
  const jobMetrics = requests.filter((u) => u.includes(`/api/jobs/${jobs[5].id}/metrics`));
  assert.ok(jobMetrics.some((u) => u.includes('after_step=-1')), jobMetrics.join('\n'));
  assert.ok(jobMetrics.some((u) => u.includes('after_step=49')), `appends after the points it has:\n${jobMetrics.join('\n')}`);
  assert.equal(requests.filter((u) => u.includes(`/api/sweeps/${sweepId}/metrics`)).length, bulkBefore,
    'no whole-sweep reload on updates');
  assert.equal(await page.locator('#sweeps li').count(), 3);

  // Controls: log x, tokens on x, colour by model size.
  await page.check('#log-x');
  await page.selectOption('#x-axis', 'tokens');
  await page.selectOption('#group-by', 'preset');
  await waitInPage(() => document.querySelectorAll('#legend .swatch').length === 2);
  assert.match(await page.textContent('#legend'), /tiny-0\.03m.*tiny-0\.1m/);
  assert.equal(await chartAttr('#chart-train', 'series'), '6');
  await page.selectOption('#group-by', 'variant');
  await page.uncheck('#log-x');
  await page.selectOption('#x-axis', 'step');

  await page.screenshot({ path: join(resultsDir, 'dashboard.png'), fullPage: true });
  assert.deepEqual(pageErrors, []);
});

test('unknown sweep in the address shows an error, not a broken page', { timeout: 2 * TIMEOUT }, async () => {
  await page.goto(`http://127.0.0.1:${ports.http_port}/#/sweeps/9999`);
  await waitInPage(() => !document.getElementById('error').hidden);
  assert.match(await page.textContent('#error'), /No sweep "9999"/);
  assert.equal(await page.isVisible('#sweep'), false);
  assert.equal(await page.locator('#sweeps li').count(), 3);
});

test('scaling view draws fitted laws when the server has fits', { timeout: 2 * TIMEOUT }, async () => {
  // The coordinator does not serve /fits yet; this stands in for it with a report in the shape of
  // core/fit_report.h (law n: L(N) = E + A·N^-alpha, non-finite numbers as strings).
  const estimate = (value) => ({ value, lo: value * 0.9, hi: value * 1.1 });
  const report = {
    law: 'n', confidence: 0.95, bootstrap: { requested: 100, used: 100, seed: 0 }, baseline: 'baseline',
    groups: ['baseline', 'none', 'unified'].map((group, i) => ({
      group, runs: 2, model_sizes: 2, parameters: { E: estimate(1.5 + 0.1 * i), A: estimate(40), alpha: estimate(0.3) },
      derived: {},
    })).concat([{ group: 'broken', runs: 1, parameters: { E: { value: 'nan' }, A: estimate(1), alpha: estimate(1) } }]),
    multipliers: [{ variant: 'unified', baseline: 'baseline', at_budgets: [], constant: estimate(1.25) }],
    warnings: [],
  };
  await page.route('**/api/sweeps/*/fits', (route) => route.fulfill({ json: report }));
  const sweepId = await page.$eval('#sweeps li:last-child a', (a) => a.dataset.sweepId);
  await page.goto(`http://127.0.0.1:${ports.http_port}/#/sweeps/${sweepId}`);
  await waitInPage(() => document.getElementById('chart-scaling').dataset.fits === '3');
  assert.equal(await chartAttr('#chart-scaling', 'series'), '3', 'the runs are still drawn');
  const fits = await page.textContent('#fits');
  assert.match(fits, /law n/);
  assert.match(fits, /alpha = 0\.3/);
  assert.match(fits, /compute multiplier of unified over baseline: 1\.25 \[1\.13, 1\.38\]/);
  await page.locator('#chart-scaling').scrollIntoViewIfNeeded();
  await page.locator('#chart-scaling').screenshot({ path: join(resultsDir, 'scaling-fits.png') });
  await page.unroute('**/api/sweeps/*/fits');
  assert.deepEqual(pageErrors, []);
});
