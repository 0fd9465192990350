import { SIDE_NAMES } from '../stores/types.js';
import { formatNumber, formatRatio } from './format.js';
import type { Section } from './section.js';

/** Pads the cells of a Markdown table so it reads as well in a terminal as in a README. */
function markdown(header: string[], rightAligned: boolean[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (rightAligned[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (rightAligned[i] ? `${'-'.repeat(w + 1)}:` : '-'.repeat(w + 2))).join('|')}|`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

/**
 * Renders a section as a heading, its detail line, a table with the ratio columns, and its notes.
 * The ratio columns say which way is better, so a reader never has to guess.
 */
export function renderSection(s: Section): string {
  const direction = s.better === 'higher' ? 'higher is better' : 'lower is better';
  const hasFlowRatio = s.rows.some((r) => r.side === 'flow' && r.ratio !== undefined);
  const hasLgRatio = s.rows.some((r) => r.side === 'langgraph' && r.ratio !== undefined);
  const header = ['backend', 'side', 'measured', ...s.columns.map((c) => c.header)];
  if (hasFlowRatio) header.push('@flow/raw');
  if (hasLgRatio) header.push('LangGraph/@flow');
  const right = header.map((_, i) => i >= 3);
  const body = s.rows.map((r) => {
    const cells = [
      r.backend,
      SIDE_NAMES[r.side],
      r.label,
      ...s.columns.map((c) => formatNumber(r.values[c.key], c.digits)),
    ];
    if (hasFlowRatio) cells.push(r.side === 'flow' ? formatRatio(r.ratio) : '');
    if (hasLgRatio) cells.push(r.side === 'langgraph' ? formatRatio(r.ratio) : '');
    return cells;
  });
  const ratioColumn = s.columns.find((c) => c.key === s.ratioOf)?.header ?? s.ratioOf;
  const parts = [`### ${s.title}`, '', `${s.detail} Ratios compare ${ratioColumn} (${direction}).`, ''];
  parts.push(
    s.rows.length > 0 ? markdown(header, right, body) : '(no rows: every store of this workload failed)',
  );
  if (s.notes.length > 0) parts.push('', ...s.notes.map((n) => `- ${n}`));
  return parts.join('\n');
}
