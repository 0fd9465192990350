import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import { InvalidArgumentError } from '@flow/core';
import { tooLarge } from './body.js';
import type { Incoming, Outgoing } from './exchange.js';
import { type ExchangeHandler, type FlowHandler, HANDLE_EXCHANGE, OPEN_HANDLER } from './handler.js';
import { SERVER } from './http-error.js';
import { isLoopbackHost, PEER } from './loopback.js';

/** Options of `serve`. */
export interface ServeOptions {
  /** `0` picks a free port. @default 8787 */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
}

/** A running server. */
export interface FlowServer {
  /** The address it answers on, as `http://host:port`. */
  readonly url: string;
  readonly port: number;
  readonly host: string;
  /** The underlying node:http server. */
  readonly server: Server;
  /**
   * Stops accepting connections, ends the idle ones, and resolves once the server is closed: the answers
   * still in flight are sent, each ending its connection.
   */
  close(): Promise<void>;
}

/** The client's address; `''` (no loopback client) once the socket is gone. */
const peerOf = (req: IncomingMessage): string => req.socket.remoteAddress ?? '';

function toRequest(req: IncomingMessage, base: string, signal: AbortSignal): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      headers.append(raw[i]!, raw[i + 1]!);
    } catch {
      // A header the Fetch API refuses is dropped; the handler needs none of them.
    }
  }
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  // `base + path` keeps a path such as `//x` a path instead of reading it as a host.
  const request = new Request(base + (req.url ?? '/'), {
    method,
    headers,
    signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
  } as RequestInit);
  // A handler without a token reads it even when a function of the user's passes the request on.
  Object.defineProperty(request, PEER, { value: peerOf(req) });
  return request;
}

async function writeResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (response.body === null) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  // Small JSON documents and files, mostly: one write with its length is the cheapest (no chunked
  // encoding, no turn of the event loop per chunk).
  const body = Buffer.from(await response.arrayBuffer());
  headers['content-length'] = String(body.byteLength);
  res.writeHead(response.status, headers);
  res.end(body);
}

/**
 * A header of node:http's request by the Fetch API's rule: every field of that name joined with `, `. Not
 * `req.headers`, which keeps only the first of some (`Authorization`, `Host`): both entry points must read
 * the same value, and two `Authorization` fields are then never taken for a token.
 */
function headerOf(req: IncomingMessage, name: string): string | null {
  const raw = req.rawHeaders;
  let value: string | null = null;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const field = raw[i]!;
    if (field.length === name.length && field.toLowerCase() === name) {
      value = value === null ? raw[i + 1]! : `${value}, ${raw[i + 1]!}`;
    }
  }
  return value;
}

/** Reads node:http's request body, refusing (413) once past `max`: a declared length is refused unread. */
function readBody(req: IncomingMessage, max: number): Promise<Uint8Array> {
  if (Number(req.headers['content-length']) > max) return Promise.reject(tooLarge(max));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        done();
        req.pause(); // the rest is never read: the answer closes the connection (see writeOutgoing)
        reject(tooLarge(max));
      } else chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    const onClose = () => onError(new Error('the client went away before the body ended'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/** node:http's request as the routes read it: no `Request`, no web stream. */
function toIncoming(req: IncomingMessage, base: string): Incoming {
  return {
    method: req.method ?? 'GET',
    url: base + (req.url ?? '/'),
    header: (name) => headerOf(req, name),
    body: (max) => readBody(req, max),
    peer: peerOf(req),
  };
}

/** Writes an answer of the handler's in one piece, with its length. */
function writeOutgoing(out: Outgoing, req: IncomingMessage, res: ServerResponse): void {
  const headers: Record<string, string> = out.headers;
  const body = out.body ?? '';
  headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  // A body left unread (refused as too large) is not drained: the connection ends with the answer.
  if (!req.complete) headers.connection = 'close';
  res.writeHead(out.status, headers);
  res.end(body);
}

function plain(res: ServerResponse, status: number, code: string, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' });
  res.end(JSON.stringify({ error: { code, message } }));
}

/**
 * Serves a handler on node:http. A handler made with `token: false` is served on a loopback address only;
 * it refuses requests from elsewhere itself (client address, `Host`, `Origin`), so a function of the user's
 * wrapped around it, which `serve` cannot tell from any other handler, still answers this machine only.
 *
 * @example const server = await serve(createHandler({ graphs, token }), { port: 8787 }); await server.close();
 */
export async function serve(handler: FlowHandler, options: ServeOptions = {}): Promise<FlowServer> {
  const { port = 8787, host = '127.0.0.1' } = options;
  if (typeof handler !== 'function')
    throw new InvalidArgumentError(`${SERVER}serve needs a handler from createHandler`);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError(`${SERVER}port must be an integer from 0 to 65535, got ${port}`);
  }
  const open = (handler as unknown as Record<symbol, unknown>)[OPEN_HANDLER] === true;
  if (open && !isLoopbackHost(host)) {
    throw new InvalidArgumentError(
      `${SERVER}a handler without a token (token: false) is served on a loopback address only, not ${JSON.stringify(host)}: ` +
        'give it a token to listen there',
    );
  }
  // The handler of createHandler answers without Fetch objects here; any other handler gets a Request.
  const exchange = (handler as unknown as Record<symbol, ExchangeHandler | undefined>)[HANDLE_EXCHANGE];
  let base = '';
  // Once close() is called, each answer still to go out ends its connection: close() then resolves when
  // the last is sent, instead of waiting out node:http's keep-alive (5 s) on their sockets.
  let closing = false;
  const endIfClosing = (res: ServerResponse) => {
    if (closing && !res.headersSent) res.setHeader('connection', 'close');
  };
  const server = createServer((req, res) => {
    if (exchange !== undefined) {
      exchange(toIncoming(req, base))
        .then((out) => {
          endIfClosing(res);
          writeOutgoing(out, req, res);
        })
        .catch(() => plain(res, 500, 'INTERNAL', 'internal error: the server could not answer this request'));
      return;
    }
    const aborted = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    let request: Request;
    try {
      request = toRequest(req, base, aborted.signal);
    } catch {
      plain(res, 400, 'INVALID_ARGUMENT', 'the request could not be read');
      return;
    }
    handler(request)
      .then((response) => {
        endIfClosing(res);
        return writeResponse(response, res);
      })
      .catch(() => plain(res, 500, 'INTERNAL', 'internal error: the server could not answer this request'));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address !== null ? address.port : port;
  const urlHost = isIP(host) === 6 ? `[${host}]` : host;
  base = `http://${urlHost}:${actualPort}`;
  return {
    url: base,
    port: actualPort,
    host,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        closing = true;
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
