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

/**
 * Runs `script` in one MULTI right after `SET key value`: one round trip, and no other client's command can
 * run between the two. The script takes the value from `key`, so a large value never passes through Lua.
 * On NOSCRIPT the whole MULTI is sent again (the SET simply made twice).
 */
export function runScriptAfterSet(
  client: RedisClient,
  [key, value]: readonly [string, string],
  script: LuaScript,
  keys: readonly string[],
  args: readonly RedisArg[],
): Promise<unknown> {
  return bySha(client, async (byHash) => {
    const tx = client.multi().set(key, value);
    if (byHash) tx.evalsha(script.sha, keys.length, ...keys, ...args);
    else tx.eval(script.body, keys.length, ...keys, ...args);
    const replies = await tx.exec();
    if (replies === null) throw new Error('the MULTI transaction was aborted');
    const [[setError], [scriptError, reply]] = replies as [[Error | null], [Error | null, unknown]];
    if (setError) throw setError;
    if (scriptError) throw scriptError;
    return reply;
  });
}
