/**
 * The bodies of the answers this package builds, by answer: `serve` writes them to the socket as they are,
 * instead of reading back the `Response`'s stream (a web stream read costs more than the route itself on a
 * small page). Any other `Response` is read the ordinary way.
 */
const bodies = new WeakMap<Response, string | Uint8Array>();

/** A `Response` whose body `serve` can write without reading it back. */
export function responseWithBody(body: string | Uint8Array, init: ResponseInit): Response {
  const response = new Response(body, init);
  bodies.set(response, body);
  return response;
}

/** The body a response was made with by `responseWithBody`, unless someone has read it since. */
export function knownBody(response: Response): string | Uint8Array | undefined {
  return response.bodyUsed ? undefined : bodies.get(response);
}
