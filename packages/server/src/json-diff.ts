import type { PlainJson } from '@flow/core';

/** One change between two JSON values, as a JSON Patch operation (`path` a JSON Pointer). */
export interface Change {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: PlainJson;
}

/** A JSON Pointer token: `~` → `~0`, `/` → `~1`. */
function token(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

function isObject(value: PlainJson): value is { [key: string]: PlainJson } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function same(a: PlainJson, b: PlainJson): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => same(v, b[i]!));
  const ka = Object.keys(a);
  const ob = b as { [key: string]: PlainJson };
  return (
    ka.length === Object.keys(ob).length &&
    ka.every((k) => Object.hasOwn(ob, k) && same((a as { [key: string]: PlainJson })[k]!, ob[k]!))
  );
}

function diffObjects(
  from: { [key: string]: PlainJson },
  to: { [key: string]: PlainJson },
  path: string,
  out: Change[],
): void {
  for (const key of Object.keys(from)) {
    if (!Object.hasOwn(to, key)) out.push({ op: 'remove', path: `${path}/${token(key)}` });
  }
  for (const key of Object.keys(to)) {
    const next = to[key]!;
    if (Object.hasOwn(from, key)) diffValues(from[key]!, next, `${path}/${token(key)}`, out);
    else out.push({ op: 'add', path: `${path}/${token(key)}`, value: next });
  }
}

/**
 * Arrays: the common head and tail are kept, the middle is compared index by index, then grown or shrunk.
 * Linear in the length (appending to a log is one `add` per new entry, prepending keeps the old entries),
 * so a large state cannot make a diff expensive. Removals go from the end, so the operations apply in order.
 */
function diffArrays(from: PlainJson[], to: PlainJson[], path: string, out: Change[]): void {
  let head = 0;
  while (head < from.length && head < to.length && same(from[head]!, to[head]!)) head++;
  let tail = 0;
  while (
    tail < from.length - head &&
    tail < to.length - head &&
    same(from[from.length - 1 - tail]!, to[to.length - 1 - tail]!)
  ) {
    tail++;
  }
  const fromEnd = from.length - tail;
  const toEnd = to.length - tail;
  const common = Math.min(fromEnd, toEnd);
  for (let i = head; i < common; i++) diffValues(from[i]!, to[i]!, `${path}/${i}`, out);
  for (let i = fromEnd - 1; i >= toEnd; i--) out.push({ op: 'remove', path: `${path}/${i}` });
  for (let i = common; i < toEnd; i++) out.push({ op: 'add', path: `${path}/${i}`, value: to[i]! });
}

function diffValues(from: PlainJson, to: PlainJson, path: string, out: Change[]): void {
  if (same(from, to)) return;
  if (isObject(from) && isObject(to)) diffObjects(from, to, path, out);
  else if (Array.isArray(from) && Array.isArray(to)) diffArrays(from, to, path, out);
  else out.push({ op: 'replace', path, value: to });
}

/**
 * The changes that turn `from` into `to`, as JSON Patch operations applied in order (`add`, `remove`,
 * `replace` only). A changed scalar, or a value that changed kind, is one `replace` at its path.
 *
 * @example diffJson({ n: 1, log: ['a'] }, { n: 2, log: ['a', 'b'] });
 * // [{ op: 'replace', path: '/n', value: 2 }, { op: 'add', path: '/log/1', value: 'b' }]
 */
export function diffJson(from: PlainJson, to: PlainJson): Change[] {
  const out: Change[] = [];
  diffValues(from, to, '', out);
  return out;
}
