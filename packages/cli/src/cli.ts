import { type Command, CommanderError } from 'commander';
import { createContext } from './context.js';
import { CliError, UsageError } from './errors.js';
import { type CliIo, processIo } from './io.js';
import { OutputClosed } from './process-stream.js';
import { buildProgram } from './program.js';
import { isEncryptedWithoutKeys } from './store/encryption.js';

function describeError(error: unknown, debug: boolean): string {
  if (debug && error instanceof Error) {
    let text = error.stack ?? String(error);
    for (let cause = error.cause; cause !== undefined; cause = (cause as Error).cause) {
      text += `\ncaused by: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}`;
      if (!(cause instanceof Error)) break;
    }
    return text;
  }
  // Not damage: the store is encrypted and FLOW_KEYS was not given. Say where, without "corrupt checkpoint".
  if (isEncryptedWithoutKeys(error)) return `${error.location}: ${error.detail}`;
  const message = error instanceof Error ? error.message : String(error);
  // One line, whatever the driver put in its message.
  return message.replace(/\s*\n\s*/g, ' ');
}

/**
 * Runs the `flow` command line and resolves with the exit code: 0 on success, 1 for an error (an unknown
 * thread included), 2 for a usage error. Stores are closed before it resolves.
 *
 * @param argv the arguments after the program name, as in `process.argv.slice(2)`
 * @param io streams, environment and clock (the real process by default)
 * @example process.exitCode = await runCli(process.argv.slice(2));
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  const ctx = createContext(io);
  const program = buildProgram(ctx, io);
  // The command whose action is running, for the usage text of a usage error.
  let current: Command = program;
  program.hook('preAction', (_program, action) => {
    current = action;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    // The reader went away (`flow threads | head -1`): it has all it wanted, so that is no failure.
    if (error instanceof OutputClosed) return 0;
    // Commander has already printed its message and the usage text.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof UsageError) {
      io.stderr.write(`${ctx.errColor.red('error:')} ${error.message}\n`);
      io.stderr.write(current.helpInformation());
      return 2;
    }
    io.stderr.write(`${ctx.errColor.red('error:')} ${describeError(error, argv.includes('--debug'))}\n`);
    return error instanceof CliError ? error.exitCode : 1;
  }
}
