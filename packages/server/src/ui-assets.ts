import { readdirSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import type { Outgoing } from './exchange.js';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * The page's headers: everything from this origin only, no inline script, no framing. With the UI's
 * rendering through `textContent`, a payload can never run as code.
 */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "form-action 'none'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

interface Asset {
  body: Uint8Array;
  type: string;
}

/** The UI's files (`ui/` of this package), read once: `/` is the page, `/ui/<file>` the rest. */
export function loadUi(): (path: string) => Outgoing | undefined {
  const dir = new URL('../ui/', import.meta.url);
  const assets = new Map<string, Asset>();
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const type = TYPES[extname(name)];
    if (type === undefined) continue;
    assets.set(`/ui/${name.replaceAll('\\', '/')}`, { body: readFileSync(new URL(name, dir)), type });
  }
  const index = assets.get('/ui/index.html');
  if (index === undefined) throw new Error('@flow/server: ui/index.html is missing from the package');
  assets.set('/', index);
  return (path) => {
    const asset = assets.get(path);
    if (asset === undefined) return undefined;
    return { status: 200, headers: { ...PAGE_HEADERS, 'content-type': asset.type }, body: asset.body };
  };
}
