import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP forwarder to the test server that can be taken down and brought back on the same port:
 * "the database went away" without touching the shared server. (Kept here, 40 lines, rather than adding a
 * workspace dependency for it.)
 */
export interface Outage {
  /** A URL like `url`, but through the forwarder. */
  readonly url: string;
  /** Stops listening and cuts every live connection. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
}

export async function startOutage(url: string): Promise<Outage> {
  const target = new URL(url);
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const up = async () => {
    server = createServer((client) => {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('error', () => {});
        s.on('close', () => {
          sockets.delete(s);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  };
  const down = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  };
  await up();
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(port);
  return { url: proxied.toString(), up, down };
}
