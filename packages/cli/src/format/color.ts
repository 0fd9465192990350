/** A palette of ANSI styles; every function is the identity when colour is off. */
export interface Palette {
  /** Whether the styles emit ANSI escapes. */
  enabled: boolean;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  red(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
}

const plain = (text: string): string => text;

function style(open: number, close: number): (text: string) => string {
  return (text) => (text === '' ? text : `\u001b[${open}m${text}\u001b[${close}m`);
}

/** The palette for a stream: ANSI escapes when `enabled`, plain text otherwise. */
export function createPalette(enabled: boolean): Palette {
  if (!enabled)
    return { enabled, green: plain, yellow: plain, cyan: plain, red: plain, dim: plain, bold: plain };
  return {
    enabled,
    green: style(32, 39),
    yellow: style(33, 39),
    cyan: style(36, 39),
    red: style(31, 39),
    dim: style(2, 22),
    bold: style(1, 22),
  };
}
