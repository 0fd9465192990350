import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../src/index.js';

// A loopback echo server stands in for the database.
let echo: Server;
let proxy: FaultProxy;
const sockets: Socket[] = [];

beforeEach(async () => {
  echo = createServer((s) => s.pipe(s));
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
  const port = (echo.address() as { port: number }).port;
  proxy = await startFaultProxy({ target: { host: '127.0.0.1', port } });
});

afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await proxy.close();
  await new Promise<void>((r) => echo.close(() => r()));
});

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(proxy.port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
    sockets.push(s);
  });
}

function roundTrip(s: Socket, text: string, timeoutMs = 2000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timeout')), timeoutMs);
    s.once('data', (d) => {
      clearTimeout(timer);
      resolve(d.toString());
    });
    s.write(text);
  });
}

describe('fault proxy', () => {
  it('forwards traffic both ways', async () => {
    const s = await open();
    expect(await roundTrip(s, 'hello')).toBe('hello');
    expect(proxy.stats.connections).toBe(1);
  });

  it('cut() closes live connections and new ones still work', async () => {
    const s = await open();
    await roundTrip(s, 'a');
    const closed = new Promise((r) => s.once('close', r));
    expect(proxy.cut()).toBe(1);
    await closed;
    const again = await open();
    expect(await roundTrip(again, 'b')).toBe('b');
  });

  it('adds latency', async () => {
    const s = await open();
    proxy.setLatency(150);
    const t0 = Date.now();
    await roundTrip(s, 'slow');
    // Two hops (there and back) each delayed.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
  });

  it('stall() holds traffic until released', async () => {
    const s = await open();
    proxy.stall(true);
    await expect(roundTrip(s, 'held', 300)).rejects.toThrow('timeout');
    const late = new Promise<string>((r) => s.once('data', (d) => r(d.toString())));
    proxy.stall(false);
    expect(await late).toBe('held');
  });

  it('refuse() closes new connections at once', async () => {
    proxy.refuse(true);
    const s = await open().catch(() => undefined);
    if (s) await new Promise((r) => s.once('close', r));
    expect(proxy.stats.refused).toBe(1);
    proxy.heal();
    expect(await roundTrip(await open(), 'ok')).toBe('ok');
  });
});
