import type { Incoming } from './exchange.js';
import { HttpError } from './http-error.js';

/** 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export function tooLarge(max: number): HttpError {
  return new HttpError(413, 'PAYLOAD_TOO_LARGE', `the request body is over ${max} bytes`);
}

/** Reads a `Request`'s body, refusing (413) as soon as it passes `max`: a declared length is refused unread. */
export async function readRequestBody(request: Request, max: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > max) {
    await request.body?.cancel().catch(() => {});
    throw tooLarge(max);
  }
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge(max);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * The JSON object a request carries. An empty body reads as `{}`; anything but a JSON object is a 400.
 */
export async function readJsonObject(request: Incoming, max: number): Promise<Record<string, unknown>> {
  const bytes = await request.body(max);
  if (bytes.byteLength === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new HttpError(400, 'INVALID_ARGUMENT', 'the request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'INVALID_ARGUMENT', 'the request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
