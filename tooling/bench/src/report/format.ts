/**
 * A number for a table: thousands grouped from 1,000 up, else three significant digits; `fixed` forces the
 * digits after the point. `undefined` and `NaN` print as `–`.
 *
 * @example
 * formatNumber(12345.6); // '12,346'
 * formatNumber(0.012345); // '0.0123'
 */
export function formatNumber(value: number | undefined, fixed?: number): string {
  if (value === undefined || Number.isNaN(value)) return '–';
  if (fixed !== undefined)
    return value.toLocaleString('en-US', { minimumFractionDigits: fixed, maximumFractionDigits: fixed });
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  if (value === 0) return '0';
  return Number(value.toPrecision(3)).toString();
}

/** A ratio for a table: two decimals and a `×`. */
export function formatRatio(value: number | undefined): string {
  return value === undefined || Number.isNaN(value) ? '' : `${value.toFixed(2)}×`;
}

/** Bytes as B, KB, MB or GB (powers of 1024). */
export function formatBytes(value: number): string {
  const units = ['B', 'KB', 'MB', 'GB'];
  let v = value;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${u === 0 ? v : v.toFixed(1)} ${units[u]}`;
}
