import { h } from './dom.js';

/** The page address of a run (`#/run?graph=…&thread=…`), any thread id included. */
export function runHref(graph, thread, extra = {}) {
  const params = new URLSearchParams({ graph, thread, ...extra });
  return `#/run?${params}`;
}

/** A link to a run's page. */
export function runLink(graph, thread, text = thread) {
  return h('a', { href: runHref(graph, thread) }, text);
}
