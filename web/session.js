// Sign-in for the dashboard: when the API answers 401, a small form asks for a user token once and sends it
// to POST /api/session in the Authorization header. The server answers with an HttpOnly, SameSite=Strict
// session cookie (which EventSource sends too); the token itself is kept nowhere and never goes in a URL.

// The HTTP status of GET /api/session: 200 when this page is let in, 401 when it needs a token.
export async function sessionStatus() {
  const res = await fetch('/api/session', { cache: 'no-store', credentials: 'same-origin' });
  return res.status;
}

function tokenForm() {
  const form = document.createElement('form');
  form.id = 'token-form';
  form.className = 'token-form card';
  form.innerHTML = `
    <h2>Sign in</h2>
    <p>This coordinator needs a user token (<code>gammalab-server token create --role user</code>).</p>
    <label>Token <input id="token-input" type="password" autocomplete="off" spellcheck="false" required></label>
    <button type="submit">Open dashboard</button>
    <p id="token-error" class="error" role="alert" hidden></p>`;
  return form;
}

// Resolves once the API lets this page in: at once with a live session (or a server without auth), else
// after the user entered a valid token.
export async function ensureSession() {
  if ((await sessionStatus()) !== 401) return;
  const form = tokenForm();
  const main = document.querySelector('.layout') || document.body;
  main.hidden = true;
  document.body.append(form);
  const error = form.querySelector('#token-error');
  await new Promise((resolve) => {
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const input = form.querySelector('#token-input');
      const res = await fetch('/api/session', {
        method: 'POST', cache: 'no-store', credentials: 'same-origin',
        headers: { Authorization: `Bearer ${input.value.trim()}` },
      });
      input.value = '';
      if (res.ok) return resolve();
      const body = await res.json().catch(() => null);
      error.textContent = res.status === 403 ? 'That is not a user token.' : `Token refused${body?.error ? `: ${body.error}` : ''}.`;
      error.hidden = false;
    });
  });
  form.remove();
  main.hidden = false;
}
