import type { Outgoing } from './exchange.js';
import { errorBody, type HttpError } from './http-error.js';

/** Headers of every API answer: never cached, never sniffed as something else. */
const API_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** A JSON answer. */
export function json(body: unknown, status = 200): Outgoing {
  return { status, headers: { ...API_HEADERS }, body: JSON.stringify(body) };
}

/** The JSON answer of an error. */
export function errorResponse(error: HttpError): Outgoing {
  const answer = json(errorBody(error), error.status);
  if (error.status === 401) answer.headers['www-authenticate'] = 'Bearer';
  return answer;
}
