/**
 * What a block says it prints: each `console.log(...); // text` line promises that call prints `text`. `…` or
 * `...` in the text stands for anything. Empty when the block makes no such promise.
 */
export function promisedPrints(code: string): string[] {
  return [...code.matchAll(/console\.log\(.*\);?\s*\/\/ (.*)$/gm)].map((m) => m[1]!.trim());
}

/** Spaces are not part of the promise: `[{ a: 1 }]` is what `[ { a: 1 } ]` prints. */
const squeeze = (text: string) => text.replace(/\s+/g, '');

/** Whether `printed` (stdout, one line per call) is exactly what `promised` says, call by call. */
export function printsKept(promised: readonly string[], printed: string): boolean {
  const lines = printed.split('\n').filter((line) => line !== '');
  if (lines.length !== promised.length) return false;
  return promised.every((text, i) => {
    const parts = squeeze(text)
      .split(/…|\.\.\./)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    return new RegExp(`^${parts.join('.*')}$`).test(squeeze(lines[i]!));
  });
}
