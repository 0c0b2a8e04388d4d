// Saved views (core/saved_view.h; docs/dashboard.md): the page's address (a sweep and every setting of how it
// is looked at) kept by the coordinator under a name, per user, and opened by anyone through its link
// (#/views/ID). Opening one goes to the sweep with those settings; the page then checks them as it checks any
// address, and says what it does not use.
import { h, fill } from './dom.js';
import { getJSON, postJSON, request, HttpError } from './api.js';

const VIEW_LINK = /^#\/views\/([^/?]+)$/;

// When the address is a view's link: the address it stands for, put in its place (no history step), and true;
// else false. An unknown view throws (HttpError 404).
export async function openViewLink() {
  const m = VIEW_LINK.exec(location.hash);
  if (!m) return false;
  const view = await getJSON(`/api/views/${m[1]}`);
  history.replaceState(null, '', `#/sweeps/${encodeURIComponent(view.sweep_id)}${view.settings ? `?${view.settings}` : ''}`);
  return true;
}

// The "Views" menu: save the sweep's view under a name (`current()`: {sweepId, settings}), and the user's saved
// views, each a link to open it, its own link to share, and a delete.
export function startViewsMenu(details, current) {
  const body = details.querySelector('.menu');
  const name = h('input', { type: 'text', class: 'view-name', maxlength: 80, placeholder: 'a name for this view' });
  const status = h('div', { class: 'meta status' });
  const list = h('ul', { class: 'views' });
  const save = async () => {
    const { sweepId, settings } = current();
    if (!name.value.trim()) {
      status.textContent = 'give the view a name';
      return;
    }
    try {
      const saved = await postJSON('/api/views', { name: name.value.trim(), sweep_id: String(sweepId), settings });
      status.textContent = `saved: its link is #/views/${saved.id}`;
      name.value = '';
      await load();
    } catch (e) {
      status.textContent = `not saved: ${e.message}`;
    }
  };
  const load = async () => {
    try {
      const views = await getJSON('/api/views');
      fill(list, views.length ? views.map((v) => h('li', { dataset: { viewId: v.id } },
        h('a', { href: `#/views/${encodeURIComponent(v.id)}`, class: 'open', title: `sweep ${v.sweep_id}: ${v.settings || 'its defaults'}` }, v.name),
        h('span', { class: 'note' }, ` sweep ${v.sweep_id}`),
        h('button', { type: 'button', class: 'link copy', title: 'copy the link that opens this view', onclick: () => copyLink(v, status) }, 'link'),
        v.mine ? h('button', { type: 'button', class: 'link delete', title: 'delete this view', onclick: () => remove(v) }, 'delete') : null))
        : h('li', { class: 'note' }, 'no saved views yet'));
    } catch (e) {
      fill(list, h('li', { class: 'error' }, e.message));
    }
  };
  const remove = async (v) => {
    const res = await request(`/api/views/${encodeURIComponent(v.id)}`, { method: 'DELETE' });
    const answer = await res.json().catch(() => null);
    status.textContent = res.ok ? `deleted: ${v.name}` : `not deleted: ${new HttpError('', res.status, answer).message}`;
    await load();
  };
  fill(body, h('div', { class: 'save-view' }, name, h('button', { type: 'button', class: 'save', onclick: save }, 'save this view')),
    status, h('div', { class: 'group-head' }, 'your saved views'), list);
  name.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') save();
  });
  details.addEventListener('toggle', () => {
    if (details.open) load();
  });
}

async function copyLink(view, status) {
  const link = `${location.origin}${location.pathname}#/views/${view.id}`;
  try {
    await navigator.clipboard.writeText(link);
    status.textContent = `copied: ${link}`;
  } catch {
    status.textContent = link;  // (no clipboard: the link to copy by hand)
  }
}
