import { isIP } from 'node:net';
import type { Incoming } from './exchange.js';

/**
 * Where `serve` puts the client's address on each `Request` it makes, so that a handler reached through a
 * function of the user's (`serve((request) => handler(request))`) still knows who is asking.
 */
export const PEER: unique symbol = Symbol.for('@flow/server.peer');

/** True for 127.0.0.0/8, ::1 and `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (bare === 'localhost' || bare === '::1') return true;
  if (bare.startsWith('::ffff:')) return isLoopbackHost(bare.slice(7));
  return isIP(bare) === 4 && bare.startsWith('127.');
}

// One host and an optional port: two `Host` fields joined ("a, b") or anything else is no host at all.
const AUTHORITY = /^(\[[0-9a-f:.]+\]|[^\s,:/@[\]]+)(?::\d*)?$/i;

/** The host name of a `Host` header (without its port), or `''` when it is not one host. */
export function hostName(authority: string): string {
  return AUTHORITY.exec(authority)?.[1] ?? '';
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    const { protocol, hostname } = new URL(origin);
    return (protocol === 'http:' || protocol === 'https:') && isLoopbackHost(hostname);
  } catch {
    return false; // `null` (a sandboxed frame, a file) and anything malformed
  }
}

/**
 * Why a handler without a token refuses a request, or undefined when it may answer. The rule lives in the
 * handler, not in `serve`, so it holds wherever the handler is mounted:
 * - a client on another machine (known when `serve` passed the request on);
 * - a `Host` that is not a loopback name: a page of another site whose name resolves to 127.0.0.1 (DNS rebinding);
 * - an `Origin` that is neither a loopback one nor one of `corsOrigins`: a page of another site posting a
 *   form or a `no-cors` fetch, which a browser sends without asking (cross-site request forgery).
 */
export function openRefusal(request: Incoming, url: URL, corsOrigins: readonly string[]): string | undefined {
  if (request.peer !== undefined && !isLoopbackHost(request.peer)) {
    return 'without a token this server answers only clients on this machine';
  }
  if (!isLoopbackHost(hostName(request.header('host') ?? url.host))) {
    return 'without a token this server answers only to a loopback Host';
  }
  const origin = request.header('origin');
  if (origin !== null && !corsOrigins.includes(origin) && !isLoopbackOrigin(origin)) {
    return 'without a token this server answers only pages of a loopback origin';
  }
  return undefined;
}
