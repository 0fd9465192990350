const segmenter = new Intl.Segmenter();
const WIDE =
  /\p{Extended_Pictographic}|[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/u;
const ZERO = /^[\p{Mn}\p{Me}\p{Cf}]+$/u;

/**
 * The number of terminal columns `text` takes, so tables stay aligned with emoji and CJK in thread ids.
 * An approximation of East Asian Width: good for the ids people use, not a full implementation.
 */
export function displayWidth(text: string): number {
  // Fast path: printable ASCII is one column per character.
  if (/^[\x20-\x7e]*$/.test(text)) return text.length;
  let width = 0;
  for (const { segment } of segmenter.segment(text)) {
    if (ZERO.test(segment)) continue;
    width += WIDE.test(segment) ? 2 : 1;
  }
  return width;
}

/** `text` padded with spaces to `width` columns (unchanged when already wider). */
export function padEnd(text: string, width: number): string {
  const missing = width - displayWidth(text);
  return missing > 0 ? text + ' '.repeat(missing) : text;
}

/**
 * `text` cut to at most `width` columns, ending in `…` when cut (whole grapheme clusters only, so an emoji
 * or an accented letter is never split).
 */
export function truncateToWidth(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const { segment } of segmenter.segment(text)) {
    const w = displayWidth(segment);
    if (used + w > width - 1) break;
    out += segment;
    used += w;
  }
  return `${out}…`;
}
