import { createPalette, type Palette } from './format/color.js';
import { type CliIo, colorEnabled } from './io.js';

/** What a command needs to talk to the user. */
export interface Context {
  io: CliIo;
  /** Writes a line to stdout. */
  print(line?: string): void;
  /**
   * Resolves once stdout's reader has caught up (a slow pipe holds the command back, so output never
   * piles up in memory); rejects with `OutputClosed` once the reader went away.
   */
  drained(): Promise<void>;
  /** Writes a line to stderr (notes, warnings, prompts). */
  note(line: string): void;
  /** Styles for stdout text (identity when colour is off). */
  color: Palette;
  /** Styles for stderr text. */
  errColor: Palette;
}

/** The context for one run of the CLI. */
export function createContext(io: CliIo): Context {
  return {
    io,
    print: (line = '') => io.stdout.write(`${line}\n`),
    drained: async () => {
      await io.stdout.drained?.();
    },
    note: (line) => io.stderr.write(`${line}\n`),
    color: createPalette(colorEnabled(io.stdout, io.env)),
    errColor: createPalette(colorEnabled(io.stderr, io.env)),
  };
}
