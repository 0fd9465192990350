import type { Checkpointer } from '@flow/core';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { createHandler, type FlowServer, type HandlerOptions, serve } from '../../src/index.js';
import { launchBrowser, openSignedIn } from './browser.js';
import { createStore, type StoreFixture } from './stores.js';

type Graphs = HandlerOptions['graphs'];
/** `N` of `T`: `stores[1]` of a two-store suite is a `Checkpointer`, not `Checkpointer | undefined`. */
type Tuple<T, N extends number, R extends T[] = []> = R['length'] extends N ? R : Tuple<T, N, [...R, T]>;

export interface BrowserSuiteOptions<G extends Graphs, N extends number> {
  /** The handler's token, which `openTab` signs in with; `false` serves it without one. */
  token: string | false;
  /** How many SQLite stores to open (one checkpointer each). @default 1 */
  stores?: N;
  /** Chromium flags on top of the usual ones. */
  flags?: readonly string[];
  /** The graphs to serve, on `stores`, with the runs the tests start from. */
  graphs(stores: Tuple<Checkpointer, N>): Promise<G>;
  /** Told of every request before the handler answers it. */
  onRequest?(request: Request): void;
}

/** What `beforeAll` has set up: read its fields inside tests and hooks, not while the suite is collected. */
export interface BrowserSuite<G extends Graphs, N extends number> {
  stores: Tuple<Checkpointer, N>;
  graphs: G;
  server: FlowServer;
  context: BrowserContext;
  /** A new tab at `server.url + path`, signed in with the token. */
  openTab(path: string): Promise<Page>;
}

/**
 * Registers the `beforeAll`/`afterAll` of a describe block that drives the server in headless Chromium:
 * fresh stores, the graphs on them, the server on a free port and a browser.
 */
export function browserSuite<G extends Graphs, N extends number = 1>(
  options: BrowserSuiteOptions<G, N>,
): BrowserSuite<G, N> {
  const { token, flags, onRequest } = options;
  const fixtures: StoreFixture[] = [];
  const stores: Checkpointer[] = [];
  let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
  const suite = {
    stores: stores as Tuple<Checkpointer, N>,
    openTab(path: string): Promise<Page> {
      if (token === false) throw new Error('openTab signs in, and this suite serves without a token');
      return openSignedIn(suite.context, suite.server.url + path, token);
    },
  } as BrowserSuite<G, N>;

  beforeAll(async () => {
    for (let i = 0; i < (options.stores ?? 1); i++) {
      const fixture = await createStore('sqlite');
      fixtures.push(fixture);
      stores.push(fixture.open());
    }
    suite.graphs = await options.graphs(suite.stores);
    const handler = createHandler({ graphs: suite.graphs, token });
    suite.server = await serve(
      onRequest
        ? (request) => {
            onRequest(request);
            return handler(request);
          }
        : handler,
      { port: 0 },
    );
    browser = await launchBrowser(flags);
    suite.context = browser.context;
  });
  // Only what beforeAll got to, in an order that never closes a store under a live server.
  afterAll(async () => {
    await browser?.close();
    await suite.server?.close();
    for (const store of stores) await store.close();
    for (const fixture of fixtures) await fixture.cleanup();
  });

  return suite;
}
