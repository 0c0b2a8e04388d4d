// Numbers as the dashboard and the report write them: one formatter with SI prefixes (the CLI's counterpart is
// core/number_format.h), and byte sizes.

const PREFIXES = [[1e24, 'Y'], [1e21, 'Z'], [1e18, 'E'], [1e15, 'P'], [1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k']];

// 1234567 -> "1.23M"; 0.000123 -> "1.23e-4"; '–' when not finite. `digits`: significant digits. Options, for
// the config table's short values: `below`, from where on exponent form replaces prefixes (1e27: no "e+95Y");
// `exact`, integers under it as they are (40, 9999); `trim`, exponent form without padding zeros (1e-3, not
// 1.00e-3; 1e15, not 1.00e+15).
export function si(x, digits = 3, { below = 1e27, exact = 0, trim = false } = {}) {
  if (x === null || x === undefined || !Number.isFinite(x)) return '–';
  const a = Math.abs(x);
  if (a === 0) return '0';
  if (Number.isInteger(x) && a < exact) return String(x);
  const exponent = () => (trim ? trimExponent(x.toExponential(digits - 1)) : x.toExponential(digits - 1));
  if (a >= below) return exponent();
  for (const [scale, unit] of PREFIXES) if (a >= scale) return `${+(x / scale).toPrecision(digits)}${unit}`;
  if (a >= 0.01) return `${+x.toPrecision(digits)}`;
  return exponent();
}

// "1.00e-3" -> "1e-3", "2.50e-4" -> "2.5e-4", "1.00e+15" -> "1e15".
function trimExponent(text) {
  const [mantissa, exponent] = text.split('e');
  return `${mantissa.replace(/\.?0+$/, '')}e${Number(exponent)}`;
}

// Like si() but parameter counts read better with "B" for billions.
export function count(x) {
  return si(x).replace(/G$/, 'B');
}

// 1536 -> "1.5 KiB"
export function bytesText(n) {
  const v = Number(n);
  if (!Number.isFinite(v) || v < 0) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let x = v;
  while (x >= 1024 && i < units.length - 1) {
    x /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${+x.toPrecision(3)} ${units[i]}`;
}
