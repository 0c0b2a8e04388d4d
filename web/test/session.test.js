// Browser test of the dashboard's sign-in over a real gammalab-server with real tokens, in Debian's chromium
// driven by playwright-core: no session shows the token form; a wrong token and a worker token are refused
// with an error; the user token opens the dashboard, which then loads and goes live. The token is kept
// nowhere the page's script can read (HttpOnly session cookie) and never appears in a URL.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { createTokens } from './tokens.js';

const webDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const build = resolve(webDir, process.env.GAMMALAB_BUILD || '../build');
const serverBin = join(build, 'server', 'gammalab-server');
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const TIMEOUT = 30_000;

let tmp;
let server;
let serverLog = '';
let context;
let page;
let tokens;
let base;
const urls = [];

before(async () => {
  for (const [what, path] of [['gammalab-server', serverBin], ['chromium', chromiumPath]]) {
    assert.ok(existsSync(path), `${what} not found at ${path} (set GAMMALAB_BUILD / CHROMIUM_PATH)`);
  }
  tmp = mkdtempSync(join(tmpdir(), 'gammalab-session-'));
  tokens = await createTokens(serverBin, join(tmp, 'x.db'), tmp);
  server = spawn(serverBin, ['--listen', '127.0.0.1:0', '--http', '127.0.0.1:0', '--db', join(tmp, 'x.db'),
    '--shared-root', join(tmp, 'shared'), '--web-root', webDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  server.stderr.on('data', (d) => { serverLog = (serverLog + d).slice(-4000); });
  const lines = createInterface({ input: server.stdout });
  const event = JSON.parse(await new Promise((res) => lines.once('line', res)));
  base = `http://127.0.0.1:${event.http_port}`;
  context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  page = context.pages()[0] || (await context.newPage());
  page.on('request', (r) => urls.push(r.url()));
});

after(async () => {
  await context?.close().catch(() => {});
  if (server && server.exitCode === null) {
    const exited = new Promise((res) => server.once('exit', res));
    server.kill('SIGTERM');
    await exited;
  }
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

async function submitToken(token) {
  await page.fill('#token-input', token);
  await page.click('#token-form button[type=submit]');
}

test('dashboard sign-in: no token shows the form, wrong tokens are refused, the user token opens it', { timeout: 4 * TIMEOUT }, async () => {
  await page.goto(`${base}/`);
  await page.waitForSelector('#token-form', { timeout: TIMEOUT });
  assert.equal(await page.isHidden('.layout'), true, 'the dashboard stays hidden until signed in');

  await submitToken('gl_1_not-a-token');
  await page.waitForSelector('#token-error:not([hidden])', { timeout: TIMEOUT });
  assert.match(await page.textContent('#token-error'), /refused/i);

  await submitToken(tokens.worker);
  await page.waitForFunction(() => /not a user token/.test(document.getElementById('token-error').textContent),
    null, { timeout: TIMEOUT });

  await submitToken(tokens.user);
  await page.waitForSelector('#token-form', { state: 'detached', timeout: TIMEOUT });
  await page.waitForFunction(() => document.getElementById('live').dataset.state === 'live', null, { timeout: TIMEOUT });
  await page.waitForFunction(() => !document.getElementById('no-sweeps').hidden, null, { timeout: TIMEOUT });

  // The session is an HttpOnly cookie: script sees neither it nor the token, and no URL carried the token.
  assert.equal(await page.evaluate(() => document.cookie), '');
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
  assert.ok(!stored.includes(tokens.user), 'the token is not in web storage');
  assert.ok(urls.every((u) => !u.includes(tokens.user.slice(5))), 'no URL carries the token');

  // A reload keeps the session: no form again.
  await page.reload();
  await page.waitForFunction(() => document.getElementById('live').dataset.state === 'live', null, { timeout: TIMEOUT });
  assert.equal(await page.$('#token-form'), null, serverLog);
});
