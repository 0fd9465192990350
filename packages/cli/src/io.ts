/** A stream the CLI writes to. `isTTY` decides colour, prompts and the progress line. */
export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Everything the CLI touches outside itself, so tests can run it in-process with fakes. */
export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  /** The current time in ms, for relative ages. */
  now(): number;
}

/** The real process streams, environment and clock. */
export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    now: () => Date.now(),
  };
}

/** Colour is for people: only on a TTY, and never when `NO_COLOR` is set to a non-empty value. */
export function colorEnabled(stream: OutputStream, env: CliIo['env']): boolean {
  const noColor = env.NO_COLOR;
  return stream.isTTY === true && (noColor === undefined || noColor === '');
}
