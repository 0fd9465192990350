import type { Context } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { closeGraphs, loadGraphs } from '../graph-module.js';

/** Options of `flow serve`. */
export interface ServeCommandOptions {
  graph: string;
  port: number;
  host: string;
  /** The token; undefined with `noAuth`. */
  token: string | undefined;
  /** Where the token came from, to say so without printing it. */
  tokenSource: string;
  noAuth: boolean;
}

type ServerModule = typeof import('@flow/server');

async function loadServer(): Promise<ServerModule> {
  try {
    return await import('@flow/server');
  } catch (error) {
    if (
      (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' &&
      String(error).includes('@flow/server')
    ) {
      throw new CliError('flow serve needs @flow/server, which is not installed: npm install @flow/server');
    }
    throw error;
  }
}

/** Resolves once the process is asked to stop (Ctrl-C or SIGTERM). */
function untilStopped(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      resolve(signal);
    };
    const onInt = () => stop('SIGINT');
    const onTerm = () => stop('SIGTERM');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
  });
}

/**
 * `flow serve`: the API and web UI of `@flow/server` over the graphs a module exports, until Ctrl-C. The
 * token is never printed; the graphs' checkpointers are closed on the way out.
 */
export async function serveCommand(ctx: Context, opts: ServeCommandOptions): Promise<void> {
  if (opts.token === undefined && !opts.noAuth) {
    throw new UsageError(
      'flow serve needs a token: set FLOW_TOKEN (or pass --token T), or --no-auth on a loopback host',
    );
  }
  const { createHandler, serve } = await loadServer();
  const graphs = await loadGraphs(opts.graph);
  try {
    const handler = createHandler({
      graphs: graphs as never,
      token: opts.noAuth ? false : (opts.token as string),
    });
    let server: Awaited<ReturnType<ServerModule['serve']>>;
    try {
      server = await serve(handler, { port: opts.port, host: opts.host });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'EADDRINUSE')
        throw new CliError(`port ${opts.port} on ${opts.host} is in use: pick another with --port`);
      if (code === 'INVALID_ARGUMENT') throw new UsageError((error as Error).message);
      throw error;
    }
    const names = Object.keys(graphs).join(', ');
    ctx.note(
      `serving ${names} on ${server.url} (${opts.noAuth ? 'no auth, loopback only' : `token from ${opts.tokenSource}`})`,
    );
    ctx.print(server.url);
    await untilStopped();
    await server.close();
  } finally {
    await closeGraphs(graphs);
  }
}
