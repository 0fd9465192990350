import { connect, createServer, type Server, type Socket } from 'node:net';

/** Where the proxy forwards to. */
export interface ProxyTarget {
  host: string;
  port: number;
}

/** Counters a test can assert on. */
export interface FaultProxyStats {
  /** Client connections accepted (and forwarded) so far. */
  connections: number;
  /** Connections destroyed by `cut()`. */
  cut: number;
  /** Connections refused while `refuse(true)` was on. */
  refused: number;
}

/**
 * A TCP proxy between a client under test and a real server, with switches for the faults a network
 * backend must survive: cut every live connection, add latency, stall traffic, refuse new connections.
 * It only ever listens on and connects to loopback addresses given by the test.
 */
export interface FaultProxy {
  readonly host: string;
  readonly port: number;
  readonly stats: FaultProxyStats;
  /** Destroys every live connection (both sides), as a network cut or server crash would. */
  cut(): number;
  /** Delays every chunk in both directions by `ms` (0 turns it off). */
  setLatency(ms: number): void;
  /** While on, holds all traffic (connections stay open, nothing moves); off releases what was held. */
  stall(on: boolean): void;
  /** While on, new connections are closed at once. */
  refuse(on: boolean): void;
  /** Turns every fault off. */
  heal(): void;
  /** Cuts everything and stops listening. */
  close(): Promise<void>;
}

interface Pipe {
  client: Socket;
  server: Socket;
}

/**
 * Starts a proxy on `127.0.0.1` (a random free port unless `listenPort` is given) forwarding to `target`.
 * @example
 * const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: 5432 } });
 * const url = `postgres://postgres@127.0.0.1:${proxy.port}/postgres`;
 * proxy.cut();
 */
export async function startFaultProxy(options: {
  target: ProxyTarget;
  listenPort?: number;
}): Promise<FaultProxy> {
  const { target } = options;
  const pipes = new Set<Pipe>();
  const stats: FaultProxyStats = { connections: 0, cut: 0, refused: 0 };
  let latency = 0;
  let stalled = false;
  let refusing = false;
  const held: Array<() => void> = [];

  // Forward one chunk respecting stall and latency; order is kept because every chunk waits the same delay.
  const forward = (to: Socket, chunk: Buffer) => {
    const send = () => {
      if (stalled) {
        held.push(send);
        return;
      }
      if (latency > 0) setTimeout(() => to.destroyed || to.write(chunk), latency);
      else if (!to.destroyed) to.write(chunk);
    };
    send();
  };

  const server: Server = createServer((client) => {
    if (refusing) {
      stats.refused++;
      client.destroy();
      return;
    }
    stats.connections++;
    const upstream = connect(target.port, target.host);
    const pipe: Pipe = { client, server: upstream };
    pipes.add(pipe);
    const end = () => {
      pipes.delete(pipe);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk) => forward(upstream, chunk));
    upstream.on('data', (chunk) => forward(client, chunk));
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listenPort ?? 0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('fault proxy: no TCP address');

  const release = () => {
    for (const send of held.splice(0)) send();
  };

  const proxy: FaultProxy = {
    host: '127.0.0.1',
    port: address.port,
    stats,
    cut() {
      const n = pipes.size;
      for (const pipe of pipes) {
        pipe.client.destroy();
        pipe.server.destroy();
      }
      pipes.clear();
      held.length = 0;
      stats.cut += n;
      return n;
    },
    setLatency(ms) {
      latency = Math.max(0, ms);
    },
    stall(on) {
      stalled = on;
      if (!on) release();
    },
    refuse(on) {
      refusing = on;
    },
    heal() {
      latency = 0;
      refusing = false;
      stalled = false;
      release();
    },
    async close() {
      proxy.cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
