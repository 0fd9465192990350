import { type Command, Option } from 'commander';
import { parseJsonOption, resumeCommand } from './commands/resume.js';
import { serveCommand } from './commands/serve.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { parseInteger } from './parse-options.js';

const GRAPH_HELP = 'the module exporting the compiled graph: ./app.mjs (default export) or ./app.mjs#name';

/** Registers the commands that run a graph module: `serve` and `resume`. */
export function registerGraphCommands(
  program: Command,
  ctx: Context,
  io: CliIo,
  threadArg: (v: string) => string,
): void {
  program
    .command('serve')
    .description('serve the API and web UI of @flow/server over the graphs a module exports')
    .requiredOption('--graph <module>', GRAPH_HELP)
    .option('--port <n>', 'the port', '8787')
    .option('--host <host>', 'the address to listen on', '127.0.0.1')
    .addOption(
      new Option('--token <token>', 'the API token (default: $FLOW_TOKEN; prefer it: flags show in ps)'),
    )
    .option('--no-auth', 'serve without a token (loopback hosts only)')
    .addHelpText(
      'after',
      "\nThe token is never printed. Ctrl-C stops the server and closes the graphs' stores.",
    )
    .action(async (opts: { graph: string; port: string; host: string; token?: string; auth: boolean }) => {
      const port = parseInteger(opts.port, '--port', 0, 65535);
      const token = opts.token ?? io.env.FLOW_TOKEN;
      if (!opts.auth && opts.token !== undefined)
        throw new UsageError('--token and --no-auth contradict each other');
      await serveCommand(ctx, {
        graph: opts.graph,
        port,
        host: opts.host,
        token: token === '' ? undefined : token,
        tokenSource: opts.token !== undefined ? '--token' : 'FLOW_TOKEN',
        noAuth: !opts.auth,
      });
    });

  program
    .command('resume')
    .description('resume a run with its graph: answer its question, patch its state, or recover it')
    .argument('<thread>', 'the thread id')
    .requiredOption('--graph <module>', GRAPH_HELP)
    .option('--answer <json>', 'the answer, as JSON (a string is quoted: --answer \'"yes"\')')
    .option('--patch <json>', 'a JSON object of state keys to replace first')
    .option('--json', 'print the result as one JSON document')
    .action(
      async (thread: string, opts: { graph: string; answer?: string; patch?: string; json?: boolean }) => {
        const id = threadArg(thread);
        const answer = opts.answer === undefined ? undefined : parseJsonOption(opts.answer, '--answer');
        const patch = opts.patch === undefined ? undefined : parseJsonOption(opts.patch, '--patch');
        if (patch !== undefined && (typeof patch !== 'object' || patch === null || Array.isArray(patch))) {
          throw new UsageError('--patch must be a JSON object of state keys');
        }
        await resumeCommand(ctx, id, {
          graph: opts.graph,
          answer,
          patch: patch as Record<string, unknown> | undefined,
          json: opts.json === true,
        });
      },
    );
}
