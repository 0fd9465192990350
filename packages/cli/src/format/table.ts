import { displayWidth, padEnd } from './width.js';

/** One table cell: the text to measure, and optionally how to style it once padded. */
export interface Cell {
  text: string;
  style?: (padded: string) => string;
}

const GAP = '  ';

/**
 * Writes an aligned table page by page, so a large listing streams instead of waiting for every row.
 * Column widths come from the header and the first page; a longer cell on a later page widens only its
 * own row, so earlier output never has to move.
 */
export class TableWriter {
  readonly #write: (line: string) => void;
  readonly #header: Cell[];
  #widths: number[] | undefined;

  constructor(header: Cell[], write: (line: string) => void) {
    this.#header = header;
    this.#write = write;
  }

  /** Writes a page of rows (the header first, on the first call). */
  writePage(rows: Cell[][]): void {
    if (this.#widths === undefined) {
      this.#widths = this.#header.map((h, i) =>
        Math.max(displayWidth(h.text), ...rows.map((r) => displayWidth(r[i]?.text ?? ''))),
      );
      this.#writeRow(this.#header);
    }
    for (const row of rows) this.#writeRow(row);
  }

  /** Whether anything (the header at least) was written. */
  get started(): boolean {
    return this.#widths !== undefined;
  }

  #writeRow(row: Cell[]): void {
    const widths = this.#widths!;
    const last = row.length - 1;
    const cells = row.map((cell, i) => {
      // The last column is not padded: no trailing spaces.
      const padded = i === last ? cell.text : padEnd(cell.text, widths[i] ?? 0);
      return cell.style ? cell.style(padded) : padded;
    });
    this.#write(cells.join(GAP));
  }
}
