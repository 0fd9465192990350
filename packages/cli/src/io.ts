import { guardProcessStream, type ProcessStream } from './process-stream.js';

/** A stream the CLI writes to. `isTTY` decides colour, prompts and the progress line. */
export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
  /**
   * Resolves when the reader has caught up enough to take more (a slow pipe holds the writer back), and
   * rejects once the reader went away. Streams without it are never waited for.
   */
  drained?(): Promise<void>;
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

let processStreams: { stdout: ProcessStream; stderr: ProcessStream } | undefined;

/** The process's stdout and stderr, guarded once per process (see `guardProcessStream`). */
export function processOutput(): { stdout: ProcessStream; stderr: ProcessStream } {
  processStreams ??= {
    stdout: guardProcessStream(process.stdout, true),
    stderr: guardProcessStream(process.stderr, false),
  };
  return processStreams;
}

/** The real process streams, environment and clock. */
export function processIo(): CliIo {
  const { stdout, stderr } = processOutput();
  return { stdout, stderr, stdin: process.stdin, env: process.env, now: () => Date.now() };
}

/** Colour is for people: only on a TTY, and never when `NO_COLOR` is set to a non-empty value. */
export function colorEnabled(stream: OutputStream, env: CliIo['env']): boolean {
  const noColor = env.NO_COLOR;
  return stream.isTTY === true && (noColor === undefined || noColor === '');
}
