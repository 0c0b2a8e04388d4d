// The page names every module of its import graph in a modulepreload link (index.html): the browser then fetches
// them all at once instead of one level of imports after another (three levels were ~100 ms of every first draw,
// docs/perf.md). A module added to the graph and not listed, or listed and no longer imported, fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = join(dirname(fileURLToPath(import.meta.url)), '..');

// The modules app.js imports, directly or not (static imports of the page's own files, './NAME.js').
function importGraph(entry) {
  const seen = new Set();
  const walk = (name) => {
    if (seen.has(name)) return;
    seen.add(name);
    const text = readFileSync(join(web, name), 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'\.\/([\w-]+\.js)'/gms)) walk(m[1]);
  };
  walk(entry);
  return seen;
}

test('index.html preloads exactly the modules the page imports', () => {
  const html = readFileSync(join(web, 'index.html'), 'utf8');
  const listed = [...html.matchAll(/<link rel="modulepreload" href="\/([\w-]+\.js)">/g)].map((m) => m[1]);
  assert.equal(new Set(listed).size, listed.length, 'each once');
  const graph = importGraph('app.js');
  graph.delete('app.js');  // (loaded by its script tag)
  assert.deepEqual([...listed].sort(), [...graph].sort());
});
