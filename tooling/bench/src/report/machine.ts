import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import Database from 'better-sqlite3';
import { Redis } from 'ioredis';
import pg from 'pg';

/** Where the numbers came from. */
export interface MachineInfo {
  cpu: string;
  cores: number;
  memoryGb: number;
  os: string;
  node: string;
  commit: string | undefined;
  servers: Record<string, string>;
  packages: Record<string, string>;
}

const PACKAGES = [
  '@flow/core',
  '@flow/graph',
  '@flow/checkpoint-memory',
  '@flow/checkpoint-sqlite',
  '@flow/checkpoint-postgres',
  '@flow/checkpoint-redis',
  '@langchain/langgraph',
  '@langchain/langgraph-checkpoint',
  '@langchain/langgraph-checkpoint-sqlite',
  '@langchain/langgraph-checkpoint-postgres',
  'better-sqlite3',
  'pg',
  'ioredis',
];

function packageVersion(name: string): string {
  try {
    const file = new URL(`../../node_modules/${name}/package.json`, import.meta.url);
    return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function gitCommit(): string | undefined {
  try {
    const cwd = new URL('../..', import.meta.url).pathname;
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

async function postgresVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
  } finally {
    await client.end();
  }
}

async function redisVersion(url: string): Promise<string> {
  const client = new Redis(url, { lazyConnect: true });
  client.on('error', () => {});
  await client.connect();
  try {
    return /redis_version:(\S+)/.exec(await client.info('server'))?.[1] ?? 'unknown';
  } finally {
    client.disconnect();
  }
}

function sqliteVersion(): string {
  const db = new Database(':memory:');
  try {
    return String(db.prepare('SELECT sqlite_version()').pluck().get());
  } finally {
    db.close();
  }
}

/** Describes this machine, the servers the bench talked to, and the package versions it loaded. */
export async function machineInfo(urls: { postgres?: string; redis?: string }): Promise<MachineInfo> {
  const servers: Record<string, string> = { sqlite: sqliteVersion() };
  if (urls.postgres) servers.postgres = await postgresVersion(urls.postgres);
  if (urls.redis) servers.redis = await redisVersion(urls.redis);
  const cpuList = cpus();
  return {
    cpu: cpuList[0]?.model.trim() ?? 'unknown',
    cores: cpuList.length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    os: `${process.platform} ${release()}`,
    node: process.version,
    commit: gitCommit(),
    servers,
    packages: Object.fromEntries(PACKAGES.map((p) => [p, packageVersion(p)])),
  };
}

/** The machine as a few lines of Markdown. */
export function renderMachine(m: MachineInfo): string {
  const servers = Object.entries(m.servers)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const pkgs = Object.entries(m.packages)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return [
    `- machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, ${m.os}; Node ${m.node}`,
    `- servers: ${servers}`,
    `- packages: ${pkgs}`,
    `- commit: ${m.commit ?? 'unknown'}`,
  ].join('\n');
}
