import type { Side } from '../stores/types.js';

/** One measured number of a section. */
export interface Column {
  key: string;
  header: string;
  /** Digits after the point; by default three significant digits, thousands grouped. */
  digits?: number;
}

/** One store's result in a section. */
export interface Row {
  backend: string;
  side: Side;
  /** What exactly was measured, e.g. `SqliteCheckpointer` or `StateGraph + SqliteSaver (durability sync)`. */
  label: string;
  values: Record<string, number | undefined>;
  /** `@flow / raw` on @flow rows, `LangGraph / @flow` on LangGraph rows, of the section's ratio column. */
  ratio?: number;
}

/** One printed table: a workload, or one view of it. */
export interface Section {
  id: string;
  title: string;
  /** The sizes and what each number means. */
  detail: string;
  columns: Column[];
  /** The column the ratios compare. */
  ratioOf: string;
  /** Whether a larger value of that column is better (throughput) or worse (time, bytes). */
  better: 'higher' | 'lower';
  rows: Row[];
  notes: string[];
}

/** A new, empty section. */
export function section(init: Omit<Section, 'rows' | 'notes'> & { notes?: string[] }): Section {
  return { ...init, rows: [], notes: init.notes ?? [] };
}

/**
 * Fills in the ratios: each @flow row against the raw row of its backend, each LangGraph row against the
 * @flow row of its backend (the first one, when there are several).
 */
export function fillRatios(s: Section): Section {
  const first = (backend: string, side: Side) => s.rows.find((r) => r.backend === backend && r.side === side);
  for (const row of s.rows) {
    const base =
      row.side === 'flow'
        ? first(row.backend, 'raw')
        : row.side === 'langgraph'
          ? first(row.backend, 'flow')
          : undefined;
    const a = row.values[s.ratioOf];
    const b = base?.values[s.ratioOf];
    row.ratio = a !== undefined && b !== undefined && b !== 0 ? a / b : undefined;
  }
  return s;
}
