const started = performance.now();

/** Prints one progress line on stderr, with the seconds since the bench started; stdout keeps the tables. */
export function progress(line: string): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
  process.stderr.write(`[${seconds}s] ${line}\n`);
}
