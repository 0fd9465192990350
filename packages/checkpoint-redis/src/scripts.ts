import { createHash } from 'node:crypto';

/** A Lua script, called by its SHA1 once loaded. */
export interface LuaScript {
  readonly name: string;
  readonly body: string;
  /** SHA1 of `body`, as `SCRIPT LOAD` returns it. */
  readonly sha: string;
}

function lua(name: string, body: string): LuaScript {
  return { name, body, sha: createHash('sha1').update(body).digest('hex') };
}

// Field names of one step N in the checkpoints hash: N:r revision, N:t epoch ms, N:m meta JSON, N:p interrupt
// payload, and N:s the state when it is small; a large state is the key `<prefix>:st|N|<thread>` instead
// (see keys.ts for why). Thread keys always come first as KEYS[1..4] = checkpoints, steps, head, incoming;
// index keys as KEYS[5..8] = all, running, interrupted, done.

/**
 * put: the revision check, the write, the summary and the thread index, in one atomic call.
 * A small state comes as ARGV[9] and goes to the N:s field. A large one was `SET` under `incoming` by the same
 * MULTI, and is moved to the step's state key (or deleted on a conflict). Either way the other place is
 * cleared, so a step overwritten with a state of the other size is never read twice.
 * KEYS: checkpoints, steps, head, incoming, the four indexes, the step's state key.
 * ARGV: thread, step, ifRevision ('' = unconditional), epoch ms, meta, payload, status, ts[, small state].
 * Returns {1, new revision} or {0, stored revision} on conflict (nothing written).
 */
export const PUT = lua(
  'put',
  `local step = ARGV[2]
local rfield = step .. ':r'
local staged = ARGV[9] == nil
local current = tonumber(redis.call('HGET', KEYS[1], rfield) or '0')
if ARGV[3] ~= '' and tonumber(ARGV[3]) ~= current then
  if staged then redis.call('DEL', KEYS[4]) end
  return {0, current}
end
-- Every read before the first write: Redis does not roll back a script that fails half-way.
if staged and redis.call('EXISTS', KEYS[4]) == 0 then
  return redis.error_reply('ERR the state of this put did not arrive (its SET failed)')
end
local latest = redis.call('ZREVRANGE', KEYS[2], 0, 0)[1]
local previous = redis.call('HGET', KEYS[3], 'status')
local revision = redis.call('HINCRBY', KEYS[1], rfield, 1)
if staged then
  redis.call('HSET', KEYS[1], step .. ':t', ARGV[4], step .. ':m', ARGV[5], step .. ':p', ARGV[6])
  redis.call('HDEL', KEYS[1], step .. ':s')
  redis.call('RENAME', KEYS[4], KEYS[9])
else
  redis.call('HSET', KEYS[1], step .. ':t', ARGV[4], step .. ':m', ARGV[5], step .. ':p', ARGV[6], step .. ':s', ARGV[9])
  redis.call('DEL', KEYS[9])
end
redis.call('ZADD', KEYS[2], step, step)
if not latest or tonumber(step) >= tonumber(latest) then
  local status_key = {running = 6, interrupted = 7, done = 8}
  local status = ARGV[7]
  redis.call('HSET', KEYS[3], 'step', step, 'status', status, 'ts', ARGV[8])
  if previous ~= status then
    if previous and status_key[previous] then
      redis.call('ZREM', KEYS[status_key[previous]], ARGV[1])
    end
    redis.call('ZADD', KEYS[status_key[status]], 0, ARGV[1])
  end
  redis.call('ZADD', KEYS[5], 0, ARGV[1])
end
return {1, revision}`,
);

/**
 * get and list: steps newest first within [min, max], at most `limit` (-1: all), with their fields.
 * KEYS: checkpoints, steps. ARGV: max, min, limit, state key prefix, thread.
 * Returns a flat array of (step, revision, meta, state, payload) groups.
 */
export const READ = lua(
  'read',
  `local steps = redis.call('ZREVRANGEBYSCORE', KEYS[2], ARGV[1], ARGV[2], 'LIMIT', 0, ARGV[3])
local out = {}
for _, step in ipairs(steps) do
  local f = redis.call('HMGET', KEYS[1], step .. ':r', step .. ':m', step .. ':s', step .. ':p')
  out[#out + 1] = step
  out[#out + 1] = f[1]
  out[#out + 1] = f[2]
  out[#out + 1] = f[3] or redis.call('GET', ARGV[4] .. step .. '|' .. ARGV[5])
  out[#out + 1] = f[4]
end
return out`,
);

/**
 * listThreads: thread ids from one index in byte order after `min`, with their summaries; never touches state.
 * KEYS: an index. ARGV: min ('-' or '(' .. after), limit (-1: all), the head key prefix.
 * Returns a flat array of (thread, step, status, ts) groups.
 */
export const THREADS = lua(
  'threads',
  `local ids = redis.call('ZRANGEBYLEX', KEYS[1], ARGV[1], '+', 'LIMIT', 0, ARGV[2])
local out = {}
for _, id in ipairs(ids) do
  local h = redis.call('HMGET', ARGV[3] .. id, 'step', 'status', 'ts')
  out[#out + 1] = id
  for i = 1, 3 do out[#out + 1] = h[i] end
end
return out`,
);

/**
 * deleteThread: drops the thread's keys, its states and its index entries.
 * KEYS: checkpoints, steps, head, incoming, the four indexes. ARGV: thread, state key prefix.
 * Returns how many checkpoints there were.
 */
export const DELETE = lua(
  'delete',
  `local steps = redis.call('ZRANGE', KEYS[2], 0, -1)
for _, step in ipairs(steps) do redis.call('DEL', ARGV[2] .. step .. '|' .. ARGV[1]) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
for i = 5, 8 do redis.call('ZREM', KEYS[i], ARGV[1]) end
return #steps`,
);

/**
 * prune: removes steps below `beforeStep` and/or older than `olderThan` (both: AND), never the latest.
 * KEYS: checkpoints, steps. ARGV: beforeStep ('' = none), olderThan epoch ms ('' = none), state key prefix,
 * thread. Returns how many it removed. The summary needs no change: the latest checkpoint stays.
 */
export const PRUNE = lua(
  'prune',
  `local latest = redis.call('ZREVRANGE', KEYS[2], 0, 0)[1]
if not latest then return 0 end
local max = '+inf'
if ARGV[1] ~= '' then max = '(' .. ARGV[1] end
local older = tonumber(ARGV[2])
local removed = 0
for _, step in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', max)) do
  local remove = step ~= latest
  if remove and older then
    local t = tonumber(redis.call('HGET', KEYS[1], step .. ':t'))
    remove = t ~= nil and t < older
  end
  if remove then
    redis.call('HDEL', KEYS[1], step .. ':r', step .. ':t', step .. ':m', step .. ':s', step .. ':p')
    redis.call('DEL', ARGV[3] .. step .. '|' .. ARGV[4])
    redis.call('ZREM', KEYS[2], step)
    removed = removed + 1
  end
end
return removed`,
);

/**
 * setup: records the layout version under a fresh prefix and returns the stored one. With ARGV[2] = '0'
 * (`create: false`) it only reads, and returns false when the prefix holds no store.
 * KEYS: the format key. ARGV: this version, '1' to create or '0' not to.
 */
export const INIT = lua(
  'init',
  `local found = redis.call('GET', KEYS[1])
if found then return found end
if ARGV[2] == '0' then return false end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]`,
);

/** Every script, loaded by `setup()`. */
export const SCRIPTS: readonly LuaScript[] = [PUT, READ, THREADS, DELETE, PRUNE, INIT];
