// The server's overhead, measured side by side on real stores:
//   1. GET /api/graphs/:graph/runs pages (limit 100) over 5,000 threads vs listThreads() alone: the Fetch
//      handler called in-process (the target: what @flow/server adds, whatever the transport it is mounted
//      in) and over loopback HTTP through `serve` (reported: it adds a socket round trip, which on SQLite alone
//      costs more than the target allows);
//   2. answering an interrupt through HTTP (POST …/resume) vs app.resume() in the same process, beside the
//      node:http floor (a bare server calling app.resume), after a warm-up long enough for the JIT.
// Run: pnpm --filter @flow/server bench [--quick]   (Postgres from FLOW_TEST_POSTGRES_URL or 127.0.0.1:5432)
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresCheckpointer } from '@flow/checkpoint-postgres';
import { SqliteCheckpointer } from '@flow/checkpoint-sqlite';
import { Checkpoint } from '@flow/core';
import pg from 'pg';
import { createHandler, serve } from '../dist/index.js';
import { reviewGraph } from '../test/support/graphs.mjs';
import { openClient } from './http-client.mjs';

const quick = process.argv.includes('--quick');
const THREADS = quick ? 1000 : 5000;
const PAGE = 100;
const LIST_ROUNDS = quick ? 3 : 7;
const ANSWERS = quick ? 30 : 150;
const ANSWER_WARMUP = quick ? 50 : 200;
const TOKEN = 'bench-token';
const PG_URL = process.env.FLOW_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const AUTH = { authorization: `Bearer ${TOKEN}` };
const TARGET_HEAD = ['target (wall-time medians)', 'store', 'measured', 'verdict'];

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return `p25 ${s[Math.floor(s.length / 4)].toFixed(2)}, p75 ${s[Math.floor((3 * s.length) / 4)].toFixed(2)}`;
};

/** A seeded generator of numbers in [0, 1) (mulberry32): the same orders on every run. */
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = seeded(20261201);

/**
 * Runs `sides` (name → async fn) once each per slice, in an order shuffled every slice. Not a rotation: that
 * keeps each side behind the same one, which then always pays for the garbage its predecessor left (behind
 * the in-process handler's Requests and Responses, HTTP alone measured 0.18 ms a page instead of 0.13). Per call: wall ms,
 * and this process's CPU ms (user + system; client and server share the process), which a busy machine
 * inflates far less than wall time: a call that waits on a socket may lose the core for a whole time slice.
 * A side may return a function, called after its call is timed: the checks of what it answered.
 */
async function inTurns(sides, slices, perSlice) {
  const names = Object.keys(sides);
  const wall = Object.fromEntries(names.map((n) => [n, []]));
  const cpu = Object.fromEntries(names.map((n) => [n, []]));
  const order = [...names];
  for (let slice = 0; slice < slices; slice++) {
    const context = await perSlice?.(slice);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const name of order) {
      const c = process.cpuUsage();
      const t = performance.now();
      const verify = await sides[name](context);
      wall[name].push(performance.now() - t);
      const used = process.cpuUsage(c);
      cpu[name].push((used.user + used.system) / 1000);
      verify?.();
    }
  }
  return { wall, cpu };
}

async function populate(store) {
  await store.setup();
  const batch = [];
  for (let i = 0; i < THREADS; i++) {
    const thread = `bench-${String(i).padStart(5, '0')}`;
    batch.push(
      store.put(new Checkpoint({ thread, step: 0, state: { n: i, note: 'x'.repeat(200) }, next: ['a'] })),
    );
    if (batch.length === 50) await Promise.all(batch.splice(0));
  }
  await Promise.all(batch);
}

/** A node:http server answering each request with `answer(searchParams)`, with its length; no routing, no auth. */
async function plainServer(answer) {
  const server = http.createServer(async (req, res) => {
    const body = await answer(new URL(req.url, 'http://x').searchParams);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

/** The page's JSON as the floors make it: listThreads and JSON.stringify. */
async function pageText(store, after) {
  const rows = await store.listThreads({ after, limit: PAGE + 1 });
  const page = rows.slice(0, PAGE);
  return JSON.stringify({ runs: page, next: rows.length > PAGE ? page.at(-1).thread : null });
}

/** The cheapest Fetch handler of the same page: its query read, listThreads, JSON.stringify, a Response. */
async function fetchFloor(store, request) {
  const after = new URL(request.url).searchParams.get('after') ?? undefined;
  return new Response(await pageText(store, after), { headers: { 'content-type': 'application/json' } });
}

/** The cheapest HTTP answer of the same page: node:http, listThreads, JSON.stringify. */
const floorServer = (store) => plainServer((query) => pageText(store, query.get('after') ?? undefined));

/**
 * HTTP alone: node:http answering each page's JSON made beforehand (no store, no encoding), the client
 * parsing it as it parses the others. What is left of a page when its listing and encoding cost nothing.
 */
async function transportServer(store) {
  const texts = new Map();
  let after;
  for (let p = 0; p * PAGE < THREADS; p++) {
    texts.set(after ?? '', await pageText(store, after));
    after = JSON.parse(texts.get(after ?? '')).next ?? undefined;
  }
  const server = await plainServer((query) => texts.get(query.get('after') ?? ''));
  return { ...server, texts };
}

/**
 * Pages through every thread, page by page in turns: listThreads alone; in-process, the handler called with a
 * Request and its answer's text read (the route without a socket), the Fetch floor (the cheapest Fetch handler
 * of the page) and Fetch alone (a Request and a Response of the page made beforehand, its text read); over
 * loopback, HTTP alone (pages made beforehand) and the client's JSON.parse of a page alone, the node:http
 * floor, and GET …/runs through `serve`; ms per page of each.
 */
async function benchList(store, handler, url) {
  const floor = await floorServer(store);
  const transport = await transportServer(store);
  const viaServe = await openClient(url);
  const viaFloor = await openClient(floor.url);
  const viaTransport = await openClient(transport.url);
  const pages = Math.ceil(THREADS / PAGE);
  const cursors = [undefined];
  const query = (p) =>
    `limit=${PAGE}${cursors[p] === undefined ? '' : `&after=${encodeURIComponent(cursors[p])}`}`;
  const check = (runs, p) => {
    if (runs.length !== Math.min(PAGE, THREADS - p * PAGE)) throw new Error(`page ${p}: ${runs.length} runs`);
    cursors[p + 1] = runs.at(-1).thread;
  };
  const sides = {
    listThreads: async (p) => {
      const rows = await store.listThreads({ after: cursors[p], limit: PAGE + 1 });
      check(rows.slice(0, PAGE), p);
    },
    // What a Fetch server does with the route: hands it a Request and reads the answer's text. Parsing it
    // is the caller's, so it is checked after the clock stops.
    handler: async (p) => {
      const answer = await handler(new Request(`http://x/api/graphs/g/runs?${query(p)}`, { headers: AUTH }));
      const text = await answer.text();
      return () => check(JSON.parse(text).runs, p);
    },
    fetchFloor: async (p) => {
      const answer = await fetchFloor(store, new Request(`http://x/?${query(p)}`, { headers: AUTH }));
      const text = await answer.text();
      return () => check(JSON.parse(text).runs, p);
    },
    // The page's text is looked up as `parse` looks it up; the Request is made as for the others, unread.
    fetchAlone: async (p) => {
      new Request(`http://x/?${query(p)}`, { headers: AUTH });
      const answer = new Response(transport.texts.get(cursors[p] ?? ''), {
        headers: { 'content-type': 'application/json' },
      });
      const text = await answer.text();
      return () => check(JSON.parse(text).runs, p);
    },
    transport: async (p) => check((await viaTransport.request('GET', `/?${query(p)}`, AUTH)).body.runs, p),
    parse: async (p) => check(JSON.parse(transport.texts.get(cursors[p] ?? '')).runs, p),
    floor: async (p) => check((await viaFloor.request('GET', `/?${query(p)}`, AUTH)).body.runs, p),
    http: async (p) =>
      check((await viaServe.request('GET', `/api/graphs/g/runs?${query(p)}`, AUTH)).body.runs, p),
  };
  // Round 0 warms every path up and is not counted.
  const timed = { wall: {}, cpu: {} };
  for (let round = 0; round <= LIST_ROUNDS; round++) {
    const times = await inTurns(sides, pages, (slice) => slice);
    if (round === 0) continue;
    for (const kind of ['wall', 'cpu']) {
      for (const [n, t] of Object.entries(times[kind])) timed[kind][n] = [...(timed[kind][n] ?? []), ...t];
    }
  }
  viaServe.close();
  viaFloor.close();
  viaTransport.close();
  floor.close();
  transport.close();
  return timed;
}

/**
 * The cheapest HTTP answer of an interrupt: node:http, the body read and parsed, app.resume, JSON.stringify;
 * no routing, no auth, no checks.
 */
async function answerFloorServer(app) {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', async () => {
      const { answer, interrupt } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const thread = decodeURIComponent(req.url.split('/')[5]);
      const body = JSON.stringify(await app.resume(thread, { answer, interrupt }));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

/**
 * Answers interrupted runs four ways in turns: app.resume, the handler in-process, POST …/resume, and the
 * floor (the same POST to a bare node:http server calling app.resume).
 */
async function benchAnswer(app, handler, url) {
  const client = await openClient(url);
  const floor = await answerFloorServer(app);
  const viaFloor = await openClient(floor.url);
  const ask = async (i) => {
    const r = await app.invoke({ topic: 't', log: [] }, { thread: `answer-${i}` });
    if (r.interrupt === undefined) throw new Error('the review graph did not stop for its answer');
    return { thread: r.thread, interrupt: r.interrupt.id };
  };
  const body = (run) => JSON.stringify({ answer: 'approve', interrupt: run.interrupt });
  const path = (run) => `/api/graphs/g/runs/${encodeURIComponent(run.thread)}/resume`;
  const expectDone = (status, result) => {
    if (status !== 200 || result.status !== 'done') throw new Error(`answer: ${status} ${result.status}`);
  };
  /** One answer POSTed over HTTP through `via` (serve's client or the floor's). */
  const answerOver = async (via, runs) => {
    const run = runs.shift();
    const answer = await via.request(
      'POST',
      path(run),
      { ...AUTH, 'content-type': 'application/json' },
      body(run),
    );
    expectDone(answer.status, answer.body);
  };
  const sides = {
    'app.resume': async (runs) => {
      const run = runs.shift();
      expectDone(200, await app.resume(run.thread, { answer: 'approve', interrupt: run.interrupt }));
    },
    handler: async (runs) => {
      const run = runs.shift();
      const answer = await handler(
        new Request(`http://x${path(run)}`, {
          method: 'POST',
          headers: { ...AUTH, 'content-type': 'application/json' },
          body: body(run),
        }),
      );
      expectDone(answer.status, await answer.json());
    },
    http: (runs) => answerOver(client, runs),
    floor: (runs) => answerOver(viaFloor, runs),
  };
  let next = 0;
  const prepare = async () => {
    const runs = [];
    for (let i = 0; i < 4; i++) runs.push(await ask(next++));
    return runs;
  };
  // The JIT keeps compiling the engine's and node:http's hot paths for the first thousands of calls
  // (--trace-opt): five rounds timed its tiers, not the steady state a server answers in.
  await inTurns(sides, ANSWER_WARMUP, prepare);
  const times = await inTurns(sides, ANSWERS, prepare);
  client.close();
  viaFloor.close();
  floor.close();
  return times;
}

async function onStore(name, open, cleanup) {
  const listStore = open('list');
  const answerStore = open('answer');
  try {
    await populate(listStore);
    const listHandler = createHandler({ graphs: { g: reviewGraph(listStore) }, token: TOKEN });
    const listServer = await serve(listHandler, { port: 0 });
    const list = await benchList(listStore, listHandler, listServer.url);
    await listServer.close();
    await answerStore.setup();
    const app = reviewGraph(answerStore);
    const answerHandler = createHandler({ graphs: { g: app }, token: TOKEN });
    const answerServer = await serve(answerHandler, { port: 0 });
    const answer = await benchAnswer(app, answerHandler, answerServer.url);
    await answerServer.close();
    const f = (x) => x.toFixed(2);
    const signed = (x) => `${x < 0 ? '−' : '+'}${f(Math.abs(x))}`;
    const m = median;
    for (const kind of ['wall', 'cpu']) {
      const l = list[kind];
      const a = answer[kind];
      const x = (side) => `${f(m(l[side]))} (${f(m(l[side]) / m(l.listThreads))}×)`;
      const head = `${name.padEnd(8)} ${kind.padEnd(4)}`;
      console.log(
        `${head} runs page (limit ${PAGE}, ${THREADS} threads), median ms (× listThreads): listThreads ${f(m(l.listThreads))}; ` +
          `in-process: Fetch alone ${x('fetchAlone')}, Fetch floor ${x('fetchFloor')}, handler ${x('handler')} ` +
          `[${spread(l.handler)}], ${f(m(l.handler) / m(l.fetchFloor))}× the Fetch floor`,
      );
      console.log(
        `${head} runs page over loopback: HTTP alone ${x('transport')} (of which the client's JSON.parse ${x('parse')}), ` +
          `node:http floor ${x('floor')}, GET …/runs ${x('http')} [${spread(l.http)}], ${f(m(l.http) / m(l.floor))}× the floor`,
      );
      console.log(
        `${head} answer, median ms: app.resume ${f(m(a['app.resume']))}, handler in-process ` +
          `${f(m(a.handler))}, POST …/resume ${f(m(a.http))} [${spread(a.http)}] → ${signed(m(a.http) - m(a['app.resume']))} ms per answer; ` +
          `the node:http floor ${f(m(a.floor))} (${signed(m(a.floor) - m(a['app.resume']))}), POST …/resume over it ${signed(m(a.http) - m(a.floor))}`,
      );
    }
    const l = list.wall;
    const ratio = (side) => m(l[side]) / m(l.listThreads);
    const added = m(answer.wall.http) - m(answer.wall['app.resume']);
    const over = (side) => `${f(ratio(side))}×`;
    const least = (alone) => `${f(1 + ratio(alone))}×`;
    targets.push(
      [
        'runs page in-process ≤ 1.5× listThreads',
        name,
        over('handler'),
        ratio('handler') <= 1.5 ? 'met' : 'not met',
      ],
      [
        '  the Fetch floor (Request, listThreads, JSON.stringify, Response, text)',
        name,
        over('fetchFloor'),
        '',
      ],
      ['  the least a Fetch answer can cost: listThreads + Fetch alone', name, least('fetchAlone'), ''],
      ['  the handler over the Fetch floor', name, `${f(m(l.handler) / m(l.fetchFloor))}×`, ''],
      [
        'runs page over loopback HTTP (reported)',
        name,
        over('http'),
        ratio('http') <= 1.5 ? '≤ 1.5×' : '> 1.5×',
      ],
      ['  the floor (node:http, listThreads, JSON.stringify)', name, over('floor'), ''],
      ['  the least an HTTP answer can cost: listThreads + HTTP alone', name, least('transport'), ''],
      ['  GET …/runs over the floor', name, `${f(m(l.http) / m(l.floor))}×`, ''],
      ['answer ≤ +2 ms over app.resume', name, `${signed(added)} ms`, added <= 2 ? 'met' : 'not met'],
      [
        '  the floor (node:http, JSON.parse, app.resume, JSON.stringify)',
        name,
        `${signed(m(answer.wall.floor) - m(answer.wall['app.resume']))} ms`,
        '',
      ],
      [
        '  POST …/resume over the floor (wall; CPU)',
        name,
        `${signed(m(answer.wall.http) - m(answer.wall.floor))}; ${signed(m(answer.cpu.http) - m(answer.cpu.floor))} ms`,
        '',
      ],
    );
  } finally {
    await listStore.close();
    await answerStore.close();
    await cleanup();
  }
}

console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} (the numbers mean little on a busy machine)`,
);
/** [target, store, measured (wall medians), verdict], printed as one table at the end. */
const targets = [];
const dir = await mkdtemp(join(tmpdir(), 'flow-server-bench-'));
await onStore(
  'sqlite',
  (kind) => new SqliteCheckpointer(join(dir, `${kind}.db`)),
  () => rm(dir, { recursive: true, force: true }),
);
const schemas = [`flow_server_bench_${process.pid}_list`, `flow_server_bench_${process.pid}_answer`];
await onStore(
  'postgres',
  (kind) => new PostgresCheckpointer(PG_URL, { schema: kind === 'list' ? schemas[0] : schemas[1] }),
  async () => {
    const client = new pg.Client(PG_URL);
    await client.connect();
    for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
    await client.end();
  },
);

console.log(
  'The page target is the handler in-process: what @flow/server adds to listThreads, whatever server it is ' +
    'mounted in. Over loopback HTTP the socket round trip alone (HTTP alone) costs about twice a SQLite ' +
    'listThreads of 100 rows, which no route can win back, so that ratio is reported beside it ' +
    '(README, Decisions).',
);
const widths = [0, 1, 2, 3].map((i) => Math.max(...[TARGET_HEAD, ...targets].map((row) => row[i].length)));
for (const row of [TARGET_HEAD, widths.map((w) => '-'.repeat(w)), ...targets]) {
  console.log(`| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`);
}
