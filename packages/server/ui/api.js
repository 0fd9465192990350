// The API client: the token lives in this tab's sessionStorage only (no cookie, so no CSRF).

const KEY = 'flow.token';

export const token = {
  get: () => sessionStorage.getItem(KEY),
  set: (value) => sessionStorage.setItem(KEY, value),
  clear: () => sessionStorage.removeItem(KEY),
};

/** An error answer of the API: `status`, `code` and `message` as the server sent them. */
export class ApiError extends Error {
  constructor(status, code, message, node) {
    super(message);
    this.status = status;
    this.code = code;
    this.node = node;
  }
}

/** Path segments, each percent-encoded (thread ids may hold `/`, `%`, spaces, anything). */
export function apiPath(...segments) {
  return `/api/${segments.map((s) => encodeURIComponent(String(s))).join('/')}`;
}

/**
 * Calls the API. Resolves with the JSON body; rejects with `ApiError` (status 0 when the server could not
 * be reached). A 401 also fires `flow:unauthorized`, so the page asks for the token again.
 */
export async function api(path, { method = 'GET', query, body } = {}) {
  const headers = { accept: 'application/json' };
  const t = token.get();
  if (t) headers.authorization = `Bearer ${t}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let url = path;
  if (query) {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query))
      if (v !== undefined && v !== null && v !== '') params.set(k, v);
    const text = params.toString();
    if (text) url += `?${text}`;
  }
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'UNREACHABLE', 'the server could not be reached');
  }
  const data = await response.json().catch(() => undefined);
  if (!response.ok) {
    const e = data?.error ?? {};
    const error = new ApiError(response.status, e.code ?? 'HTTP', e.message ?? response.statusText, e.node);
    if (response.status === 401) window.dispatchEvent(new CustomEvent('flow:unauthorized'));
    throw error;
  }
  return data;
}
