// The browser tests' training text: English-like sentences over a small vocabulary (as the C++ tests'
// Cluster::prepare_data), learnable, so losses fall within a few steps. `seed` picks the sentences.
export function corpus(bytes, seed) {
  const subjects = ['the model', 'a researcher', 'the worker', 'our team', 'the loss'];
  const verbs = ['trains', 'measures', 'reports', 'improves', 'scales'];
  const objects = ['the scale vectors', 'every layer', 'the learning rate', 'a small sweep', 'the norms'];
  const next = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return Math.floor((seed / 2147483648) * n);
  };
  const parts = [];
  let size = 0;
  while (size < bytes) {
    const s = `${subjects[next(5)]} ${verbs[next(5)]} ${objects[next(5)]}. `;
    parts.push(s);
    size += s.length;
  }
  return parts.join('');
}
