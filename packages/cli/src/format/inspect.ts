import { inspect } from 'node:util';

/**
 * A value pretty-printed for people, with its real types visible (`Map(1) { 'a' => 1 }`, `10n`, dates),
 * nothing elided however deep or long, each line indented by `indent` spaces.
 */
export function prettyValue(value: unknown, colors: boolean, indent = 2): string {
  const text = inspect(value, {
    depth: null,
    colors,
    maxArrayLength: null,
    maxStringLength: null,
    breakLength: 100,
    sorted: false,
  });
  const pad = ' '.repeat(indent);
  return text
    .split('\n')
    .map((line) => pad + line)
    .join('\n');
}
