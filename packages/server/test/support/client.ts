/** A small client of a running server: JSON in and out, the status kept. */
export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** Percent-encodes each segment of an API path. */
export function path(...segments: (string | number)[]): string {
  return `/api/${segments.map((s) => encodeURIComponent(String(s))).join('/')}`;
}

export function client(baseUrl: string, token: string | undefined) {
  return async function call<T = any>(
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer<T>> {
    const response = await fetch(baseUrl + url, {
      method,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body:
        body === undefined || typeof body === 'string' || body instanceof Uint8Array
          ? (body as string | Uint8Array | undefined)
          : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? undefined : JSON.parse(text),
      headers: response.headers,
    };
  };
}
