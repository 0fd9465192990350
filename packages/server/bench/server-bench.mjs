// The server's overhead, measured side by side on real stores:
//   1. GET /api/graphs/:graph/runs pages (limit 100) over 5,000 threads vs listThreads() alone;
//   2. answering an interrupt through HTTP (POST …/resume) vs app.resume() in the same process.
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

const quick = process.argv.includes('--quick');
const THREADS = quick ? 1000 : 5000;
const PAGE = 100;
const LIST_ROUNDS = quick ? 3 : 7;
const ANSWERS = quick ? 30 : 200;
const TOKEN = 'bench-token';
const PG_URL = process.env.FLOW_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

// One keep-alive connection and node:http, the leanest client: what is timed is the server's share.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
function call(url, method = 'GET', body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method,
        agent,
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

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

/** Pages through every thread: once with listThreads, once over HTTP, in turns; ms per page of each. */
async function benchList(store, url) {
  const direct = [];
  const http = [];
  const pages = Math.ceil(THREADS / PAGE);
  for (let round = 0; round < LIST_ROUNDS + 1; round++) {
    let after;
    let t = performance.now();
    for (let p = 0; p < pages; p++) {
      const rows = await store.listThreads({ after, limit: PAGE });
      after = rows.at(-1)?.thread;
    }
    const d = (performance.now() - t) / pages;
    after = undefined;
    t = performance.now();
    for (let p = 0; p < pages; p++) {
      const q = after === undefined ? '' : `&after=${encodeURIComponent(after)}`;
      after = (await call(`${url}/api/graphs/g/runs?limit=${PAGE}${q}`)).body.next;
    }
    const h = (performance.now() - t) / pages;
    if (round > 0) {
      // Round 0 warms both paths up.
      direct.push(d);
      http.push(h);
    }
  }
  return { direct: median(direct), http: median(http) };
}

/** Answers `ANSWERS` interrupted runs each way, alternating; the median ms of one answer each way. */
async function benchAnswer(app, url) {
  const ids = [];
  for (let i = 0; i < ANSWERS * 2 + 10; i++) {
    const r = await app.invoke({ topic: 't', log: [] }, { thread: `answer-${i}` });
    ids.push({ thread: r.thread, interrupt: r.interrupt?.id });
  }
  const inproc = [];
  const http = [];
  for (let i = 0; i < ids.length; i += 2) {
    const a = ids[i];
    const b = ids[i + 1];
    let t = performance.now();
    await app.resume(a.thread, { answer: 'approve', ...(a.interrupt ? { interrupt: a.interrupt } : {}) });
    const d = performance.now() - t;
    t = performance.now();
    const res = await call(
      `${url}/api/graphs/g/runs/${encodeURIComponent(b.thread)}/resume`,
      'POST',
      JSON.stringify({ answer: 'approve', ...(b.interrupt ? { interrupt: b.interrupt } : {}) }),
    );
    const h = performance.now() - t;
    if (res.status !== 200) throw new Error(`answer over HTTP: ${res.status}`);
    if (i >= 10) {
      inproc.push(d);
      http.push(h);
    }
  }
  return { inproc: median(inproc), http: median(http) };
}

async function onStore(name, open, cleanup) {
  const listStore = open('list');
  const answerStore = open('answer');
  try {
    await populate(listStore);
    const listServer = await serve(createHandler({ graphs: { g: reviewGraph(listStore) }, token: TOKEN }), {
      port: 0,
    });
    const list = await benchList(listStore, listServer.url);
    await listServer.close();
    await answerStore.setup();
    const app = reviewGraph(answerStore);
    const answerServer = await serve(createHandler({ graphs: { g: app }, token: TOKEN }), { port: 0 });
    const answer = await benchAnswer(app, answerServer.url);
    await answerServer.close();
    const ratio = list.http / list.direct;
    const added = answer.http - answer.inproc;
    console.log(
      `${name.padEnd(8)} runs page (limit ${PAGE}, ${THREADS} threads): listThreads ${list.direct.toFixed(2)} ms, ` +
        `GET …/runs ${list.http.toFixed(2)} ms → ${ratio.toFixed(2)}× (target ≤ 1.5×) ${ratio <= 1.5 ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `${name.padEnd(8)} answer: app.resume ${answer.inproc.toFixed(2)} ms, POST …/resume ${answer.http.toFixed(2)} ms → ` +
        `+${added.toFixed(2)} ms per answer (target ≤ 2 ms) ${added <= 2 ? 'ok' : 'MISSED'}`,
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
agent.destroy();
