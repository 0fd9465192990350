/**
 * A mistake in how the command was called (a malformed flag value, an unknown store scheme...).
 * The CLI prints it with the command's usage text and exits 2.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * A failure the CLI reports itself (an unknown thread, a backend package that is not installed...).
 * The CLI prints its message on one line and exits with `exitCode` (1 unless told otherwise).
 */
export class CliError extends Error {
  override readonly name = 'CliError';
  readonly exitCode: number;

  constructor(message: string, options?: { exitCode?: number; cause?: unknown }) {
    super(message, { cause: options?.cause });
    this.exitCode = options?.exitCode ?? 1;
  }
}
