import { describe, expect, it } from 'vitest';
import { formatAge } from '../src/format/age.js';
import { createPalette } from '../src/format/color.js';
import { threadLabel } from '../src/format/label.js';
import { TableWriter } from '../src/format/table.js';
import { displayWidth } from '../src/format/width.js';

const NOW = Date.parse('2025-01-08T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();

describe('formatAge', () => {
  it('gives the largest whole unit', () => {
    expect(formatAge(ago(400), NOW)).toBe('just now');
    expect(formatAge(ago(42_000), NOW)).toBe('42s ago');
    expect(formatAge(ago(3 * 60_000 + 59_000), NOW)).toBe('3m ago');
    expect(formatAge(ago(5 * 3_600_000), NOW)).toBe('5h ago');
    expect(formatAge(ago(400 * 86_400_000), NOW)).toBe('400d ago');
    expect(formatAge(ago(-120_000), NOW)).toBe('in 2m');
    expect(formatAge('not a date', NOW)).toBe('?');
  });
});

describe('tables', () => {
  it('measure emoji and CJK as two columns and combining marks as none', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('🚀')).toBe(2);
    expect(displayWidth('注文')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('👩‍👩‍👧')).toBe(2);
  });

  it('align columns by display width without trailing spaces', () => {
    const lines: string[] = [];
    const table = new TableWriter([{ text: 'THREAD' }, { text: 'STEP' }], (l) => lines.push(l));
    table.writePage([
      [{ text: '🚀' }, { text: '1' }],
      [{ text: 'order-42' }, { text: '10' }],
    ]);
    table.writePage([[{ text: 'a-much-longer-thread' }, { text: '3' }]]);
    expect(lines).toEqual(['THREAD    STEP', '🚀        1', 'order-42  10', 'a-much-longer-thread  3']);
  });

  it('style cells after padding, so colour does not break alignment', () => {
    const lines: string[] = [];
    const red = createPalette(true).red;
    const table = new TableWriter([{ text: 'A' }, { text: 'B' }], (l) => lines.push(l));
    table.writePage([[{ text: 'x', style: red }, { text: 'y' }]]);
    expect(lines[1]).toBe('\u001b[31mx\u001b[39m  y');
    expect(createPalette(false).red('x')).toBe('x');
  });
});

describe('threadLabel', () => {
  it('quotes ids that would break or disguise a line, and leaves others alone', () => {
    expect(threadLabel('order-42')).toBe('order-42');
    expect(threadLabel('a/../b "q" 🚀')).toBe('a/../b "q" 🚀');
    expect(threadLabel('two\nlines')).toBe('"two\\nlines"');
    expect(threadLabel('esc\u001b[31m')).toBe('"esc\\u001b[31m"');
    expect(threadLabel(' padded')).toBe('" padded"');
    expect(threadLabel('bidi\u202e')).toBe('"bidi\\u202e"');
    expect(threadLabel('del\u007f')).toBe('"del\\u007f"');
  });
});
