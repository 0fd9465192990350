/**
 * A request as the handler's routes read it. Both entry points make one cheaply: the Fetch handler from a
 * `Request`, `serve` straight from node:http's request (no `Request`, no web stream), since building those
 * objects cost about as much as a route that lists a page of runs.
 */
export interface Incoming {
  readonly method: string;
  /** The whole URL, `http://host:port/path?query`. */
  readonly url: string;
  /** A header's value, or null; every field of that name joined with `, `, as `Headers.get` joins them. */
  header(name: string): string | null;
  /** The client's address, when the server told us (`serve` does). */
  readonly peer?: string;
  /** The body's bytes, refused with 413 once past `max` (a declared length over it is refused unread). */
  body(max: number): Promise<Uint8Array>;
}

/** An answer as the routes make it: `serve` writes it as it is, the Fetch handler makes a `Response` of it. */
export interface Outgoing {
  status: number;
  /** Lower-case names; each answer has its own object, so headers may be added to it. */
  headers: Record<string, string>;
  body: string | Uint8Array | null;
}

/**
 * The Fetch `Response` of an answer. The headers are set one by one: on Node 20 a `Response` made with them
 * in `init` (a record converted by Web IDL rules) costs about 30 % more than one whose `Headers` gets them.
 */
export function toResponse(out: Outgoing): Response {
  const response = new Response(out.body, { status: out.status });
  const { headers } = response;
  for (const name in out.headers) headers.set(name, out.headers[name]!);
  return response;
}
