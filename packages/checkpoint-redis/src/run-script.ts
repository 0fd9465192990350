import { explainFailure, type RedisArg, type RedisClient } from './client.js';
import type { LuaScript } from './scripts.js';

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/**
 * Runs `attempt` calling the script by SHA. When the server lost its script cache (restart, failover,
 * SCRIPT FLUSH) it answers NOSCRIPT, and `attempt` runs again sending the script whole with EVAL, which also
 * caches it again. Errors go through `explainFailure`.
 */
async function bySha(client: RedisClient, attempt: (byHash: boolean) => Promise<unknown>): Promise<unknown> {
  try {
    return await attempt(true);
  } catch (error) {
    if (!isNoScript(error)) throw explainFailure(client, error);
    return attempt(false).catch((e: unknown) => {
      throw explainFailure(client, e);
    });
  }
}

/** Calls `script` (one round trip). */
export function runScript(
  client: RedisClient,
  script: LuaScript,
  keys: readonly string[],
  args: readonly RedisArg[],
): Promise<unknown> {
  return bySha(client, (byHash) =>
    byHash
      ? client.evalsha(script.sha, keys.length, ...keys, ...args)
      : client.eval(script.body, keys.length, ...keys, ...args),
  );
}

/** A command to queue in a MULTI before a script: its name, then its arguments. */
export type QueuedCommand =
  | readonly ['set', key: string, value: string]
  | readonly ['hsetnx', key: string, field: string, value: string];

/**
 * Runs `script` in one MULTI right after the `prelude` commands (a `SET` of a large state, `HSETNX`es of large
 * chunks): one round trip, and no other client's command can run between them. The script finds those values
 * in their keys, so a large value never passes through Lua. Resolves with the prelude's replies and the
 * script's; a prelude command that failed rejects. On NOSCRIPT the whole MULTI is sent again (the prelude
 * simply made twice).
 */
export function runScriptInMulti(
  client: RedisClient,
  prelude: readonly QueuedCommand[],
  script: LuaScript,
  keys: readonly string[],
  args: readonly RedisArg[],
): Promise<{ prelude: unknown[]; reply: unknown }> {
  return bySha(client, async (byHash) => {
    const tx = client.multi();
    for (const command of prelude) {
      if (command[0] === 'set') tx.set(command[1], command[2]);
      else tx.hsetnx(command[1], command[2], command[3]);
    }
    if (byHash) tx.evalsha(script.sha, keys.length, ...keys, ...args);
    else tx.eval(script.body, keys.length, ...keys, ...args);
    const replies = (await tx.exec()) as [Error | null, unknown][] | null;
    if (replies === null) throw new Error('the MULTI transaction was aborted');
    const [scriptError, reply] = replies[replies.length - 1]!;
    // NOSCRIPT first, so that bySha sends the MULTI again.
    if (scriptError) throw scriptError;
    const before = replies.slice(0, -1);
    const failed = before.find(([error]) => error !== null);
    if (failed) throw failed[0];
    return { prelude: before.map(([, value]) => value), reply };
  }) as Promise<{ prelude: unknown[]; reply: unknown }>;
}
