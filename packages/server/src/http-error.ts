import { flowPrefix, isFlowError } from '@flow/core';

/** `[flow:server] `: the start of the messages of errors the server throws in-process (bad options). */
export const SERVER = flowPrefix('server');

/** The `code` of an error answer: the engine's and storage's codes, and the HTTP layer's own. */
export type ErrorCode =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHORIZED'
  | 'NOT_FOUND'
  | 'THREAD_NOT_FOUND'
  | 'ALREADY_RESUMED'
  | 'THREAD_BUSY'
  | 'CHECKPOINT_CONFLICT'
  | 'PAYLOAD_TOO_LARGE'
  | 'NODE_FAILED'
  | 'STEP_LIMIT'
  | 'INVALID_UPDATE'
  | 'SERIALIZATION'
  | 'NOT_IMPLEMENTED'
  | 'STORAGE'
  | 'CORRUPT_CHECKPOINT'
  | 'STATE_VERSION'
  | 'INVALID_GRAPH'
  | 'INTERNAL';

/** The body of every error answer. `node` is set for the failures of a run that a node caused. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; node?: string | null };
}

/** An answer the handler gives instead of a result: thrown by a route, turned into JSON by the handler. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly node: string | null | undefined;

  constructor(status: number, code: ErrorCode, message: string, node?: string | null) {
    super(message);
    this.status = status;
    this.code = code;
    this.node = node;
  }
}

/** The status each @flow error code is answered with. Codes not listed are the server's fault (500). */
const STATUS_OF_CODE: Readonly<Record<string, number>> = {
  INVALID_ARGUMENT: 400,
  THREAD_NOT_FOUND: 404,
  ALREADY_RESUMED: 409,
  THREAD_BUSY: 409,
  CHECKPOINT_CONFLICT: 409,
  NODE_FAILED: 422,
  STEP_LIMIT: 422,
  INVALID_UPDATE: 422,
  // What the nodes returned cannot be stored (a function, a cycle): the run is recorded failed, as above.
  SERIALIZATION: 422,
  STORAGE: 503,
  // The store holds a record that fails its checks (tampered, or encrypted under a key the server lacks): the
  // server's fault, not the request's, but its message names the record and never holds plaintext or a key.
  CORRUPT_CHECKPOINT: 500,
  // The stored state is newer than the served graph, or no migration of the graph leads on from it: a
  // deployment that must change (deploy the newer graph, add the migration), told with the thread, step and versions.
  STATE_VERSION: 500,
  // The served graph cannot go on with the run: its frontier names a node the graph no longer has (nothing was
  // written), or a router returned a name it may not (the run is recorded failed: 422 below, with the node).
  INVALID_GRAPH: 500,
};

/** The failures of a run: they say which node, and only the message (a stack would leak the code). */
const RUN_FAILURES = new Set(['NODE_FAILED', 'STEP_LIMIT', 'INVALID_UPDATE', 'SERIALIZATION']);

function nodeOf(error: object): string | null {
  const { node, nodes } = error as { node?: unknown; nodes?: unknown };
  if (typeof node === 'string') return node;
  if (Array.isArray(nodes) && typeof nodes[0] === 'string') return nodes.join(', ');
  return null;
}

/**
 * The HTTP form of anything a route threw. A @flow error keeps its code and message; anything else is an
 * internal error whose message is not shown (it may hold state or driver details).
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (isFlowError(error)) {
    const status = STATUS_OF_CODE[error.code];
    if (status !== undefined) {
      if (error.code === 'INVALID_GRAPH' && typeof (error as { node?: unknown }).node === 'string') {
        return new HttpError(422, 'INVALID_GRAPH', error.message, nodeOf(error));
      }
      const node = RUN_FAILURES.has(error.code) ? nodeOf(error) : undefined;
      return new HttpError(status, error.code as ErrorCode, error.message, node);
    }
  }
  return new HttpError(500, 'INTERNAL', 'internal error: the server could not answer this request');
}

/** The JSON body of an error answer. */
export function errorBody(error: HttpError): ErrorBody {
  const body: ErrorBody = { error: { code: error.code, message: error.message } };
  if (error.node !== undefined) body.error.node = error.node;
  return body;
}
