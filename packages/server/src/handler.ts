import { InvalidArgumentError } from '@flow/core';
import type { CompiledGraph } from '@flow/graph';
import { findRoute } from './api-routes.js';
import { bearerCheck } from './auth.js';
import { DEFAULT_MAX_BODY_BYTES, readRequestBody } from './body.js';
import { type Incoming, type Outgoing, toResponse } from './exchange.js';
import { type GraphEntry, graphEntries, type ServedGraph } from './graphs.js';
import { HttpError, SERVER, toHttpError } from './http-error.js';
import { openRefusal, PEER } from './loopback.js';
import { decodeSegment, threadParam } from './query.js';
import { errorResponse, json } from './responses.js';
import { loadUi } from './ui-assets.js';

/** Options of `createHandler`. */
export interface HandlerOptions {
  /**
   * The compiled graphs to serve, by name (each with its checkpointer); another engine's graph through an
   * adapter of the `ServedGraph` shape (a LangGraph.js one: `servedGraph(app)` of `@flow/langgraph`).
   */
  graphs: Record<string, CompiledGraph<any> | ServedGraph>;
  /**
   * The bearer token every `/api/…` request must carry, or `false` for none: then the handler answers only
   * requests from this machine (loopback client, `Host` and `Origin`), wherever it is mounted, and `serve`
   * listens on a loopback address only. Required: forgetting it never leaves the API open.
   */
  token: string | false;
  /** Larger request bodies are refused with 413 before they are parsed. @default 1 MiB */
  maxBodyBytes?: number;
  /** Origins allowed to call the API from a browser page of theirs. @default none (no CORS headers) */
  corsOrigins?: readonly string[];
  /**
   * Told of every error the server could not map to an answer (500), for your logs. It gets the error
   * itself: states and tokens are never passed to it by the server. @default one line on stderr: the route, the error's name and code
   */
  onError?: (error: unknown, request: { method: string; path: string }) => void;
}

/** A Fetch-API handler: mount it in any server that speaks `Request` and `Response`. */
export type FlowHandler = (request: Request) => Promise<Response>;

/** Marks a handler made with `token: false`, for `serve` to refuse to listen on a non-loopback address. */
export const OPEN_HANDLER: unique symbol = Symbol.for('@flow/server.open-handler');

/** The handler's answers without the Fetch objects, for `serve` (see `Incoming`). */
export const HANDLE_EXCHANGE: unique symbol = Symbol.for('@flow/server.handle-exchange');

/** What `HANDLE_EXCHANGE` holds. */
export type ExchangeHandler = (request: Incoming) => Promise<Outgoing>;

/** A `Request` as the routes read it (with the client's address when `serve` made it). */
function fromRequest(request: Request): Incoming {
  const peer = (request as unknown as Record<symbol, string | undefined>)[PEER];
  return {
    method: request.method,
    url: request.url,
    header: (name) => request.headers.get(name),
    body: (max) => readRequestBody(request, max),
    ...(peer === undefined ? {} : { peer }),
  };
}

function defaultOnError(error: unknown, request: { method: string; path: string }): void {
  // Name and code only: a message may quote state, and this line goes to logs nobody vetted.
  const name = error instanceof Error ? error.name : typeof error;
  const code = (error as { code?: unknown } | null)?.code;
  const what = typeof code === 'string' ? `${name} (${code})` : name;
  process.stderr.write(`[flow:server] 500 on ${request.method} ${request.path}: ${what}\n`);
}

function corsHeaders(origins: readonly string[], origin: string | null): Record<string, string> | undefined {
  if (origin === null || !origins.includes(origin)) return undefined;
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-methods': 'GET, POST, DELETE',
    'access-control-allow-headers': 'authorization, content-type',
    'access-control-max-age': '600',
    vary: 'origin',
  };
}

function checkOptions(options: HandlerOptions): void {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError(`${SERVER}createHandler needs { graphs, token }`);
  }
  const { token, maxBodyBytes, corsOrigins } = options;
  if (token !== false && (typeof token !== 'string' || token === '')) {
    throw new InvalidArgumentError(
      `${SERVER}token must be a non-empty string, or false to serve without auth`,
    );
  }
  // What a client can send back in `Authorization: Bearer <token>`: no spaces or line ends (a header's
  // whitespace is trimmed or splits it), nothing outside ASCII (clients encode it differently).
  if (token !== false && !/^[\x21-\x7e]+$/.test(token)) {
    throw new InvalidArgumentError(
      `${SERVER}token must be visible ASCII characters, without spaces or line ends, as a client sends it in "Authorization: Bearer <token>"`,
    );
  }
  if (maxBodyBytes !== undefined && (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1)) {
    throw new InvalidArgumentError(`${SERVER}maxBodyBytes must be a positive integer`);
  }
  if (
    corsOrigins !== undefined &&
    !(Array.isArray(corsOrigins) && corsOrigins.every((o) => typeof o === 'string'))
  ) {
    throw new InvalidArgumentError(
      `${SERVER}corsOrigins must be an array of origins such as "https://ops.example.com"`,
    );
  }
}

const notFound = (what: string) => new HttpError(404, 'NOT_FOUND', what);

/**
 * The control plane as a Fetch-API handler: the JSON API under `/api/`, the web UI at `/`.
 *
 * @example
 * const handler = createHandler({ graphs: { pipeline: app }, token: process.env.FLOW_TOKEN ?? false });
 * const server = await serve(handler, { port: 8787 });
 */
export function createHandler(options: HandlerOptions): FlowHandler {
  checkOptions(options);
  const graphs = graphEntries(options.graphs);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const open = options.token === false;
  const authorized = options.token === false ? () => true : bearerCheck(options.token);
  const cors = options.corsOrigins ?? [];
  const onError = options.onError ?? defaultOnError;
  const ui = loadUi();
  const graphList = { graphs: [...graphs.keys()].map((name) => ({ name })) };

  async function api(request: Incoming, url: URL): Promise<Outgoing> {
    const [, , first, graphSegment, ...rest] = url.pathname.split('/');
    if (first === 'graphs' && graphSegment === undefined) {
      if (request.method === 'GET') return json(graphList);
      throw notFound(`no route ${request.method} ${url.pathname}`);
    }
    if (first !== 'graphs' || graphSegment === undefined)
      throw notFound(`no route ${request.method} ${url.pathname}`);
    const name = decodeSegment(graphSegment, 'the graph name');
    const graph: GraphEntry | undefined = graphs.get(name);
    if (graph === undefined) throw notFound(`no graph named ${JSON.stringify(name)}`);
    const found = findRoute(request.method, rest);
    if (found === undefined) throw notFound(`no route ${request.method} ${url.pathname}`);
    const thread = found.thread === undefined ? '' : threadParam(found.thread);
    return found.route({ request, query: url.searchParams, graph, thread, maxBodyBytes });
  }

  const handle: ExchangeHandler = async (incoming) => {
    // HEAD is answered as GET (status and headers; the transport sends no body), so `curl -I` and health checks
    // see what a GET would, auth included.
    const request = incoming.method === 'HEAD' ? { ...incoming, method: 'GET' } : incoming;
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return errorResponse(new HttpError(400, 'INVALID_ARGUMENT', 'the request URL is malformed'));
    }
    const refusal = open ? openRefusal(request, url, cors) : undefined;
    if (refusal !== undefined) return errorResponse(new HttpError(401, 'UNAUTHORIZED', refusal));
    const allowed = cors.length === 0 ? undefined : corsHeaders(cors, request.header('origin'));
    const isApi = url.pathname === '/api' || url.pathname.startsWith('/api/');
    let response: Outgoing;
    if (isApi && request.method === 'OPTIONS' && allowed !== undefined) {
      response = { status: 204, headers: {}, body: null };
    } else if (isApi && !authorized(request.header('authorization'))) {
      response = errorResponse(
        new HttpError(401, 'UNAUTHORIZED', 'send the server token as "Authorization: Bearer <token>"'),
      );
    } else {
      try {
        const page = isApi ? undefined : request.method === 'GET' ? ui(url.pathname) : undefined;
        if (!isApi && page === undefined) throw notFound(`no page ${url.pathname}`);
        response = page ?? (await api(request, url));
      } catch (error) {
        const answer = toHttpError(error);
        if (answer.status === 500) onError(error, { method: request.method, path: url.pathname });
        response = errorResponse(answer);
      }
    }
    if (allowed !== undefined) Object.assign(response.headers, allowed);
    return response;
  };
  const handler: FlowHandler = async (request) => {
    const out = await handle(fromRequest(request));
    if (request.method !== 'HEAD' || out.body === null) return toResponse(out);
    // A Fetch answer to HEAD carries no body, but says how long the GET's would be.
    const length = typeof out.body === 'string' ? Buffer.byteLength(out.body) : out.body.byteLength;
    return toResponse({ ...out, headers: { ...out.headers, 'content-length': String(length) }, body: null });
  };
  Object.defineProperty(handler, HANDLE_EXCHANGE, { value: handle });
  Object.defineProperty(handler, OPEN_HANDLER, { value: open });
  return handler;
}
