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

// One step N is the field `N` of the checkpoints hash (layout 6): `<revision> <epoch ms, maybe negative>
// <kind> <payload length> <refs>` NL, then the rest (codec.ts's packStep; Lua reads only that header). Kind `s`: the state ends
// the field; `k`: it is large, in the key `<prefix>:st|N|<thread>` (see keys.ts for why). Refs are the ids of
// the chunks the state references, comma-separated ('' for a whole state). A step written before layout 6 is
// six fields instead, read as they are until it is overwritten or pruned: N:r revision, N:t epoch ms, N:m meta
// JSON, N:p payload, N:s a small state, N:f refs (absent for a whole state); OLD_FIELDS below lists them.
// Thread keys come first as KEYS[1..4] = checkpoints, steps, head, incoming, and index keys as
// KEYS[5..9] = all, running, interrupted, done, failed, in every script that takes them (put, which serves
// several threads in one call, makes its thread keys itself and takes the indexes as KEYS[1..5]). A write is the field `<node> NUL <key>` of the step's
// writes hash (neither holds U+0000, so the split is unambiguous). A chunk is the field `<id>` of the
// thread's chunks hash (ids are [0-9A-Za-z._-], so a comma separates them).

/** Lua: the fields of step `s` as written before layout 6, for HMGET / HDEL. */
const OLD_FIELDS = `s .. ':r', s .. ':t', s .. ':m', s .. ':s', s .. ':p', s .. ':f'`;

/**
 * Lua: `steps_in(blocks, block_prefix, old, thread, max, min, limit)`, the thread's steps within [min, max]
 * (ZRANGEBYSCORE bounds), newest first, at most `limit` (-1: all). Steps live in blocks of 128 (keys.ts), a
 * sorted set each, so that Redis keeps every one a listpack; `blocks` lists them. A thread last written
 * before layout 7 has no blocks but one sorted set of all its steps, `old`, read as it is.
 */
const STEPS_IN = `local function block_bound(b)
  if b == '+inf' or b == '-inf' then return b end
  return tostring(math.floor(tonumber((string.gsub(b, '^%(', ''))) / 128))
end
local function steps_in(blocks, block_prefix, old, thread, max, min, limit)
  local found = redis.call('ZREVRANGEBYSCORE', blocks, block_bound(max), block_bound(min))
  if #found == 0 then return redis.call('ZREVRANGEBYSCORE', old, max, min, 'LIMIT', 0, limit) end
  local out, want = {}, tonumber(limit)
  for _, b in ipairs(found) do
    local left = want < 0 and -1 or want - #out
    if left == 0 then break end
    local key = block_prefix .. b .. '|' .. thread
    for _, step in ipairs(redis.call('ZREVRANGEBYSCORE', key, max, min, 'LIMIT', 0, left)) do out[#out + 1] = step end
  end
  return out
end`;

/**
 * put: one or more puts, each in turn and each on its own: its revision check, its chunks check, the write,
 * the step index, the summary, the thread index, the step's chunks and writes. Puts that arrive together share the call (one
 * round trip, one script run); a put whose condition does not hold, or that fails, writes nothing and answers
 * for itself alone, and the next put runs as if it had come alone.
 * A small state ends the packed field (kind `s`). A large one (kind `k`) was `SET` under `incoming` by the
 * same MULTI (such a put comes alone), and is moved to the step's state key (or deleted when nothing is
 * written). For a step stored before with a large state and now a small one, the state key is deleted; for
 * one stored before layout 6, its six fields are (a step never stored has no field: its revision is written
 * first and removed last).
 * Keys are made here from the thread ids (all of one cluster bucket, so of one slot): `<prefix>:<kind>|` then
 * the bucket's hash tag, then the thread (the state and writes keys put `<N>|` before it).
 * KEYS: the bucket's five indexes (all, running, interrupted, done, failed).
 * ARGV: `<prefix>:`, the hash tag ('' on a single node), then per put: thread, step, ifRevision ('' =
 * unconditional), the packed step with the revision the put expects (codec.ts's packStep), status (core's statusOf), the
 * thread summary (core's threadSummaryOf), the number k of new chunks, the number n of writes, then k (id,
 * data) pairs, then n (field, value) pairs of writes.
 * Returns two items per put, its code and a value: 1 and the new revision, 0 and the stored revision on a
 * conflict, 2 and `id` when the ref `id` is neither stored nor new with this put, or 3 and a message when a
 * command of the put failed; nothing is written in the middle two cases (no chunk, no write).
 */
export const PUT = lua(
  'put',
  `local P, tag = ARGV[1], ARGV[2]
local status_key = {running = 2, interrupted = 3, done = 4, failed = 5}
local function put(i, k, n)
  local thread, step, packed = ARGV[i], ARGV[i + 1], ARGV[i + 3]
  local guess, staged, refs = string.match(packed, '^(%d+) %-?%d+ (%a) %d+ ([^\\n]*)')
  staged = staged == 'k'
  local cp = P .. 'cp|' .. tag .. thread
  local incoming = staged and (P .. 'in|' .. tag .. thread)
  local stored = redis.call('HMGET', cp, step, step .. ':r')
  local current = tonumber((stored[1] and string.match(stored[1], '^%d+')) or stored[2] or '0')
  if ARGV[i + 2] ~= '' and tonumber(ARGV[i + 2]) ~= current then
    if staged then redis.call('DEL', incoming) end
    return 0, current
  end
  -- Keys are made only where used: every string Lua makes is hashed whole.
  local chunks = (refs ~= '' or k > 0) and (P .. 'ch|' .. tag .. thread)
  local first_chunk, last_chunk = i + 8, i + 7 + 2 * k
  if refs ~= '' then
    local new = {}
    for j = first_chunk, last_chunk, 2 do new[ARGV[j]] = true end
    for id in string.gmatch(refs, '[^,]+') do
      if not new[id] and redis.call('HEXISTS', chunks, id) == 0 then
        if staged then redis.call('DEL', incoming) end
        return 2, id
      end
    end
  end
  -- Every read before the first write: Redis does not roll back a script that fails half-way.
  if staged and redis.call('EXISTS', incoming) == 0 then
    return 3, 'ERR the state of this put did not arrive (its SET failed)'
  end
  local head_key = P .. 'head|' .. tag .. thread
  local head = redis.call('HMGET', head_key, 'step', 'status', 'i', 'b')
  local latest, previous, listed, in_blocks = head[1], head[2], head[3], head[4]
  local summary = ARGV[i + 5]
  local revision = current + 1
  -- The field as sent when its revision is the one the client expected: Lua hashes every string it makes,
  -- and a copy of the field would be a second pass over the state.
  if tonumber(guess) ~= revision then packed = revision .. string.sub(packed, #guess + 1) end
  redis.call('HSET', cp, step, packed)
  if staged or current > 0 then
    local state_key = P .. 'st|' .. tag .. step .. '|' .. thread
    if staged then redis.call('RENAME', incoming, state_key) else redis.call('DEL', state_key) end
  end
  if stored[2] then
    local s = step
    redis.call('HDEL', cp, ${OLD_FIELDS})
  end
  for j = first_chunk, last_chunk, 2 do redis.call('HSETNX', chunks, ARGV[j], ARGV[j + 1]) end
  local function index(s)
    local block = math.floor(tonumber(s) / 128)
    -- As text made by %d: Lua would format the number with %.14g, several times the work.
    local b = string.format('%d', block)
    redis.call('ZADD', P .. 'sb|' .. tag .. b .. '|' .. thread, s, s)
    -- The latest step's block is listed already when a put of this layout wrote the head (prune keeps it).
    if not (in_blocks and block == math.floor(tonumber(latest) / 128)) then
      redis.call('ZADD', P .. 'sx|' .. tag .. thread, b, b)
    end
  end
  if not in_blocks then
    -- A head without b: maybe a thread last written before layout 7, whose steps move to blocks now.
    local old = P .. 'steps|' .. tag .. thread
    if redis.call('EXISTS', old) == 1 then
      for _, s in ipairs(redis.call('ZRANGE', old, 0, -1)) do index(s) end
      redis.call('DEL', old)
    end
  end
  index(step)
  if not latest or tonumber(step) >= tonumber(latest) then
    local status = ARGV[i + 4]
    redis.call('HSET', head_key, 'step', step, 'status', status, 'i', summary, 'b', '1')
    if listed then
      local was = thread .. '\\0' .. listed
      redis.call('ZREM', KEYS[1], was)
      if previous and status_key[previous] then redis.call('ZREM', KEYS[status_key[previous]], was) end
    end
    local member = thread .. '\\0' .. summary
    -- Scores as text: a Lua number passed to redis.call is formatted with printf's %.17g first.
    redis.call('ZADD', KEYS[1], '0', member)
    redis.call('ZADD', KEYS[status_key[status]], '0', member)
  end
  if n > 0 then
    local writes = P .. 'wr|' .. tag .. step .. '|' .. thread
    for j = last_chunk + 1, last_chunk + 2 * n, 2 do redis.call('HSETNX', writes, ARGV[j], ARGV[j + 1]) end
    redis.call('ZADD', P .. 'ws|' .. tag .. thread, step, step)
  end
  return 1, revision
end
local replies = {}
local i = 3
while i <= #ARGV do
  local k, n = tonumber(ARGV[i + 6]), tonumber(ARGV[i + 7])
  local ok, code, value = pcall(put, i, k, n)
  if not ok then
    -- A failed command raises a table holding its error; anything else raises a string.
    code, value = 3, type(code) == 'table' and code.err or tostring(code)
  end
  -- Flat: Redis looks up several fields (err, ok, double...) of every table a script returns.
  replies[#replies + 1] = code
  replies[#replies + 1] = value
  i = i + 8 + 2 * k + 2 * n
end
return replies`,
);

/**
 * putWrites: stores each write whose (node, key) is not stored yet for the step.
 * KEYS: the step's writes hash, the thread's write steps. ARGV: step, then (field, value) pairs.
 */
export const WRITES = lua(
  'writes',
  `for i = 2, #ARGV, 2 do redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[1])
return 1`,
);

/** getWrites: the step's writes hash, as a flat field/value array. KEYS: the writes hash. */
export const READ_WRITES = lua('read-writes', `return redis.call('HGETALL', KEYS[1])`);

/**
 * acquireLease: takes the lease when there is none (an expired one is gone: Redis' own clock expires the key),
 * it is ARGV[1]'s already, or its owner is ARGV[5]; the expiry is Redis' TIME + ttl.
 * KEYS: the lease key. ARGV: owner, host, pid, ttl ms, owner to replace ('' for none).
 * Returns {1, owner, host, pid, expires ms} for the lease taken, or {0, ...} for the live holder.
 */
export const ACQUIRE_LEASE = lua(
  'acquire-lease',
  `local held = redis.call('HMGET', KEYS[1], 'owner', 'host', 'pid', 'exp')
if held[1] and held[1] ~= ARGV[1] and held[1] ~= ARGV[5] then
  return {0, held[1], held[2], held[3], held[4]}
end
local t = redis.call('TIME')
local exp = tostring(tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[4]))
redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'host', ARGV[2], 'pid', ARGV[3], 'exp', exp)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return {1, ARGV[1], ARGV[2], ARGV[3], exp}`,
);

/**
 * renewLease: extends ARGV[1]'s live lease by ARGV[2] ms from Redis' TIME. KEYS: the lease key.
 * Returns 1, or 0 (nothing changed) when ARGV[1] does not hold it.
 */
export const RENEW_LEASE = lua(
  'renew-lease',
  `if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
local t = redis.call('TIME')
local exp = tostring(tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[2]))
redis.call('HSET', KEYS[1], 'exp', exp)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`,
);

/** releaseLease: deletes the lease when ARGV[1] holds it. KEYS: the lease key. */
export const RELEASE_LEASE = lua(
  'release-lease',
  `if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`,
);

/** getLease: the live lease's owner, host, pid and expiry (an expired key is gone). KEYS: the lease key. */
export const READ_LEASE = lua(
  'read-lease',
  `return redis.call('HMGET', KEYS[1], 'owner', 'host', 'pid', 'exp')`,
);

/**
 * The records of `steps` (step numbers, in the order given) in the checkpoints hash, with the chunks their refs
 * name, each once (a missing one is left out: core names it). Returns {records, chunks}: a flat array of (step,
 * packed field, state, revision, meta, payload, refs) groups, and a flat array of (id, data) pairs. A step of
 * layout 6 has its packed field and, when large, its state key's text as state (false otherwise), the rest
 * false; a step stored before has false for the packed field and its six fields' values (the state from its
 * field or key).
 */
const READ_STEPS = `local function read_steps(steps, checkpoints, chunk_key, state_prefix, thread)
  local out = {}
  local ids, seen = {}, {}
  for _, s in ipairs(steps) do
    local packed = redis.call('HGET', checkpoints, s)
    local refs
    out[#out + 1] = s
    if packed then
      local kind
      kind, refs = string.match(packed, '^%d+ %-?%d+ (%a) %d+ ([^\\n]*)')
      out[#out + 1] = packed
      out[#out + 1] = kind == 'k' and redis.call('GET', state_prefix .. s .. '|' .. thread)
      for _ = 1, 4 do out[#out + 1] = false end
    else
      local f = redis.call('HMGET', checkpoints, s .. ':r', s .. ':m', s .. ':s', s .. ':p', s .. ':f')
      out[#out + 1] = false
      out[#out + 1] = f[3] or redis.call('GET', state_prefix .. s .. '|' .. thread)
      out[#out + 1] = f[1]
      out[#out + 1] = f[2]
      out[#out + 1] = f[4]
      out[#out + 1] = f[5]
      refs = f[5]
    end
    if refs then
      for id in string.gmatch(refs, '[^,]+') do
        if not seen[id] then
          seen[id] = true
          ids[#ids + 1] = id
        end
      end
    end
  end
  local chunks = {}
  -- In batches: unpack has a limit on how many values it spreads.
  for first = 1, #ids, 1000 do
    local batch = {unpack(ids, first, math.min(first + 999, #ids))}
    local data = redis.call('HMGET', chunk_key, unpack(batch))
    for i, id in ipairs(batch) do
      if data[i] then
        chunks[#chunks + 1] = id
        chunks[#chunks + 1] = data[i]
      end
    end
  end
  return {out, chunks}
end`;

/**
 * get and list: steps newest first within [min, max], at most `limit` (-1: all), as READ_STEPS returns them.
 * The latest alone is the head's step (a put moves it to the highest step; prune never removes that one).
 * KEYS: checkpoints, steps (before layout 7), chunks, head, step blocks. ARGV: max, min, limit, state key
 * prefix, thread, step block key prefix.
 */
export const READ = lua(
  'read',
  `${STEPS_IN}
${READ_STEPS}
local steps
if ARGV[1] == '+inf' and ARGV[2] == '-inf' and ARGV[3] == '1' then
  steps = {redis.call('HGET', KEYS[4], 'step')}
  if not steps[1] then steps = {} end
else
  steps = steps_in(KEYS[5], ARGV[6], KEYS[2], ARGV[5], ARGV[1], ARGV[2], ARGV[3])
end
return read_steps(steps, KEYS[1], KEYS[3], ARGV[4], ARGV[5])`,
);

/**
 * get of the latest step: the head's, as READ_STEPS returns it, or, when its packed field holds its whole state
 * (kind `s`, no refs: the usual step), the one string `<step> <packed field>`. READ answers the same with six
 * more arguments and a nested reply, and ioredis spends CPU on every argument of a call and every element of a
 * reply (measured in the bench README).
 * KEYS: checkpoints, chunks, head. ARGV: state key prefix, thread.
 */
export const READ_LATEST = lua(
  'read-latest',
  `${READ_STEPS}
local step = redis.call('HGET', KEYS[3], 'step')
if not step then return {{}, {}} end
local packed = redis.call('HGET', KEYS[1], step)
if packed and string.find(packed, '^%d+ %-?%d+ s %d+ \\n') then return step .. ' ' .. packed end
return read_steps({step}, KEYS[1], KEYS[2], ARGV[1], ARGV[2])`,
);

/**
 * deleteThread: drops the thread's keys, its states, its step blocks, its writes, its lease, its chunks and
 * its index entries.
 * KEYS: checkpoints, steps (before layout 7), head, incoming, the five indexes, write steps, lease, chunks,
 * step blocks. ARGV: thread, state key prefix, writes key prefix, step block key prefix.
 * Returns how many checkpoints there were.
 */
export const DELETE = lua(
  'delete',
  `${STEPS_IN}
local steps = steps_in(KEYS[13], ARGV[4], KEYS[2], ARGV[1], '+inf', '-inf', -1)
for _, step in ipairs(steps) do redis.call('DEL', ARGV[2] .. step .. '|' .. ARGV[1]) end
for _, block in ipairs(redis.call('ZRANGE', KEYS[13], 0, -1)) do redis.call('DEL', ARGV[4] .. block .. '|' .. ARGV[1]) end
for _, step in ipairs(redis.call('ZRANGE', KEYS[10], 0, -1)) do
  redis.call('DEL', ARGV[3] .. step .. '|' .. ARGV[1])
end
local listed = redis.call('HGET', KEYS[3], 'i')
if listed then
  for i = 5, 9 do redis.call('ZREM', KEYS[i], ARGV[1] .. '\\0' .. listed) end
end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[10], KEYS[11], KEYS[12], KEYS[13])
return #steps`,
);

/**
 * prune: removes steps below `beforeStep` and/or older than `olderThan` (both: AND), never the latest, and
 * the writes of each step it removes; then every chunk of the thread that no remaining step references.
 * KEYS: checkpoints, steps (before layout 7), write steps, chunks, step blocks. ARGV: beforeStep ('' = none),
 * olderThan epoch ms ('' = none), state key prefix, thread, writes key prefix, step block key prefix.
 * Returns how many it removed. The summary needs no change: the latest checkpoint stays.
 */
export const PRUNE = lua(
  'prune',
  `${STEPS_IN}
local thread, block_prefix = ARGV[4], ARGV[6]
local latest = steps_in(KEYS[5], block_prefix, KEYS[2], thread, '+inf', '-inf', 1)[1]
if not latest then return 0 end
local max = '+inf'
if ARGV[1] ~= '' then max = '(' .. ARGV[1] end
local older = tonumber(ARGV[2])
local removed = 0
local touched = {}
for _, step in ipairs(steps_in(KEYS[5], block_prefix, KEYS[2], thread, max, '-inf', -1)) do
  local remove = step ~= latest
  if remove and older then
    local packed = redis.call('HGET', KEYS[1], step)
    local t = tonumber(packed and string.match(packed, '^%d+ (%-?%d+)') or redis.call('HGET', KEYS[1], step .. ':t'))
    remove = t ~= nil and t < older
  end
  if remove then
    local s = step
    redis.call('HDEL', KEYS[1], s, ${OLD_FIELDS})
    redis.call('DEL', ARGV[3] .. step .. '|' .. thread, ARGV[5] .. step .. '|' .. thread)
    local block = tostring(math.floor(tonumber(step) / 128))
    redis.call('ZREM', block_prefix .. block .. '|' .. thread, step)
    touched[block] = true
    redis.call('ZREM', KEYS[2], step)
    redis.call('ZREM', KEYS[3], step)
    removed = removed + 1
  end
end
for block in pairs(touched) do
  if redis.call('EXISTS', block_prefix .. block .. '|' .. thread) == 0 then redis.call('ZREM', KEYS[5], block) end
end
if redis.call('EXISTS', KEYS[4]) == 1 then
  local live = {}
  for _, step in ipairs(steps_in(KEYS[5], block_prefix, KEYS[2], thread, '+inf', '-inf', -1)) do
    local packed = redis.call('HGET', KEYS[1], step)
    local refs = packed and string.match(packed, '^%d+ %-?%d+ %a %d+ ([^\\n]*)') or redis.call('HGET', KEYS[1], step .. ':f')
    if refs then
      for id in string.gmatch(refs, '[^,]+') do live[id] = true end
    end
  end
  local dead = {}
  for _, id in ipairs(redis.call('HKEYS', KEYS[4])) do
    if not live[id] then dead[#dead + 1] = id end
  end
  for first = 1, #dead, 1000 do
    redis.call('HDEL', KEYS[4], unpack(dead, first, math.min(first + 999, #dead)))
  end
end
return removed`,
);

/**
 * setup: records the layout version under a fresh prefix and returns the stored one. A prefix of one of the
 * layouts ARGV[3..] (earlier ones, which this one only extends) is moved to ARGV[1]. With ARGV[2] = '0'
 * (`create: false`) it does not create, and returns false when the prefix holds no store.
 * KEYS: the format key. ARGV: this version, '1' to create or '0' not to, the earlier versions.
 */
export const INIT = lua(
  'init',
  `local found = redis.call('GET', KEYS[1])
for i = 3, #ARGV do
  if found == ARGV[i] then
    redis.call('SET', KEYS[1], ARGV[1])
    return ARGV[1]
  end
end
if found then return found end
if ARGV[2] == '0' then return false end
redis.call('SET', KEYS[1], ARGV[1])
return ARGV[1]`,
);

/**
 * setup of a prefix of layout 2, 3 or 4, whose index members are bare thread ids: gives each thread of one
 * bucket its summary (head field 'i', from the head's step, status, ts and, when failed, the error in its
 * meta JSON) and replaces its members by `<thread> NUL <summary>`. Members already in that form are left
 * alone, so running it again, or from several processes, is harmless.
 * KEYS: the bucket's five indexes (all, running, interrupted, done, failed). ARGV: the head key prefix.
 * Returns how many threads it moved.
 */
export const UPGRADE_INDEXES = lua(
  'upgrade-indexes',
  `local status_key = {running = 2, interrupted = 3, done = 4, failed = 5}
local moved = 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if not string.find(id, '\\0', 1, true) then
    local head = ARGV[1] .. id
    local h = redis.call('HMGET', head, 'step', 'status', 'ts', 'm')
    local summary = h[1] .. ' ' .. h[2] .. ' ' .. h[3]
    if h[2] == 'failed' then summary = summary .. ' ' .. cjson.decode(h[4]).error end
    local member = id .. '\\0' .. summary
    for i = 1, 5 do redis.call('ZREM', KEYS[i], id) end
    redis.call('ZADD', KEYS[1], 0, member)
    if status_key[h[2]] then redis.call('ZADD', KEYS[status_key[h[2]]], 0, member) end
    redis.call('HSET', head, 'i', summary)
    moved = moved + 1
  end
end
return moved`,
);

/** Every script, loaded by `setup()`. */
export const SCRIPTS: readonly LuaScript[] = [
  PUT,
  READ,
  READ_LATEST,
  DELETE,
  PRUNE,
  INIT,
  UPGRADE_INDEXES,
  WRITES,
  READ_WRITES,
  ACQUIRE_LEASE,
  RENEW_LEASE,
  RELEASE_LEASE,
  READ_LEASE,
];
