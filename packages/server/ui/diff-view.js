import { h } from './dom.js';
import { pretty, short } from './format.js';

/** The value at a JSON Pointer, or undefined. */
function at(value, pointer) {
  if (pointer === '') return value;
  let current = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

const WORDS = { add: 'added', remove: 'removed', replace: 'changed' };

function cell(value) {
  if (value === undefined) return h('td', { class: 'empty' }, '—');
  const text = pretty(value);
  return h(
    'td',
    null,
    text.includes('\n') ? h('pre', { class: 'json' }, text) : h('code', null, short(text, 200)),
  );
}

/**
 * A diff as a table: what changed, where (the JSON Pointer, shown as a path), the value before and after.
 * `before` is the state the diff starts from, for the old values.
 */
export function diffTable(diff, before) {
  if (diff.changes.length === 0)
    return h('p', { class: 'muted' }, 'No change in the state between these steps.');
  return h(
    'table',
    { class: 'diff' },
    h(
      'caption',
      null,
      diff.from === null ? `State at step ${diff.to}` : `From step ${diff.from} to step ${diff.to}`,
    ),
    h(
      'thead',
      null,
      h(
        'tr',
        null,
        ['Change', 'Path', 'Before', 'After'].map((t) => h('th', { scope: 'col' }, t)),
      ),
    ),
    h(
      'tbody',
      null,
      diff.changes.map((change) =>
        h(
          'tr',
          { class: change.op },
          h('td', null, h('span', { class: `op ${change.op}` }, WORDS[change.op] ?? change.op)),
          h('td', { class: 'path' }, h('code', null, change.path === '' ? '(whole state)' : change.path)),
          cell(change.op === 'add' ? undefined : at(before, change.path)),
          cell(change.op === 'remove' ? undefined : change.value),
        ),
      ),
    ),
  );
}
