import { errorBody, type HttpError } from './http-error.js';
import { responseWithBody } from './known-body.js';

/** Headers of every API answer: never cached, never sniffed as something else. */
const API_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

/** A JSON answer. */
export function json(body: unknown, status = 200): Response {
  return responseWithBody(JSON.stringify(body), { status, headers: API_HEADERS });
}

/** The JSON answer of an error. */
export function errorResponse(error: HttpError): Response {
  const response = json(errorBody(error), error.status);
  if (error.status === 401) response.headers.set('www-authenticate', 'Bearer');
  return response;
}
