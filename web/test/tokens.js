// Real tokens for the browser tests: made with `gammalab-server token create` on the test's database before
// the server starts, written to files for the worker and CLI (--token-file), and a helper that signs a browser
// context in as the dashboard's form would (POST /api/session; the cookie is then the context's).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const run = promisify(execFile);

async function create(serverBin, db, role) {
  const { stdout } = await run(serverBin, ['token', 'create', '--role', role, '--name', `web test ${role}`, '--db', db],
    { encoding: 'utf8' });
  return stdout.trim();
}

// { user, worker, userFile, workerFile } for the database `db`; the files go in `dir`.
export async function createTokens(serverBin, db, dir) {
  const user = await create(serverBin, db, 'user');
  const worker = await create(serverBin, db, 'worker');
  const userFile = join(dir, 'user.token');
  const workerFile = join(dir, 'worker.token');
  writeFileSync(userFile, `${user}\n`, { mode: 0o600 });
  writeFileSync(workerFile, `${worker}\n`, { mode: 0o600 });
  return { user, worker, userFile, workerFile };
}

export async function signIn(context, base, token) {
  const res = await context.request.post(`${base}/api/session`, { headers: { Authorization: `Bearer ${token}` } });
  if (!res.ok()) throw new Error(`POST /api/session: HTTP ${res.status()}`);
}
