import { api, apiPath } from './api.js';
import { h, replace } from './dom.js';
import { age, statusOf } from './format.js';
import { runLink } from './links.js';

const STATUSES = ['all', 'running', 'interrupted', 'done', 'failed'];
const PAGE = 25;

function listHref(params) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) query.set(k, v);
  return `#/runs?${query}`;
}

function badge(status) {
  return h('span', { class: `badge ${status}` }, status);
}

/**
 * The runs of one graph, filtered by status and paged. `back` keeps the `after` of the earlier pages in
 * the address, so Previous works after a reload too.
 */
export async function renderRuns(main, { graphs, params }) {
  const graph = params.get('graph') ?? graphs[0]?.name;
  const status = params.get('status') ?? 'all';
  const after = params.get('after') ?? '';
  const back = params.get('back') ? JSON.parse(params.get('back')) : [];
  const heading = h('h1', { tabIndex: -1 }, 'Runs');
  const graphPicker =
    graphs.length > 1
      ? h(
          'label',
          { class: 'inline' },
          'Graph ',
          h(
            'select',
            { onchange: (e) => (location.hash = listHref({ graph: e.target.value, status })) },
            graphs.map(({ name }) => h('option', { value: name, selected: name === graph }, name)),
          ),
        )
      : h('span', { class: 'muted' }, graph);
  const filters = h(
    'nav',
    { class: 'filters', 'aria-label': 'Filter by status' },
    STATUSES.map((s) =>
      h(
        'a',
        {
          class: 'chip',
          href: listHref({ graph, status: s === 'all' ? '' : s }),
          'aria-current': s === status ? 'page' : undefined,
        },
        s,
      ),
    ),
  );
  const body = h('div', null, h('p', { class: 'muted' }, 'Loading…'));
  replace(main, h('div', { class: 'toolbar' }, heading, graphPicker), filters, body);
  heading.focus();
  if (graph === undefined) return;

  const page = await api(apiPath('graphs', graph, 'runs'), {
    query: { status: status === 'all' ? undefined : status, after: after || undefined, limit: PAGE },
  });
  const rows = page.runs.map((run) =>
    h(
      'tr',
      null,
      h('td', { class: 'thread' }, runLink(graph, run.thread)),
      h('td', null, badge(statusOf(run))),
      h('td', { class: 'num' }, String(run.latestStep)),
      h('td', null, h('time', { dateTime: run.ts, title: run.ts }, age(run.ts))),
      h(
        'td',
        { class: 'error-cell' },
        run.error ? `${run.error.node ?? ''}${run.error.node ? ': ' : ''}${run.error.message}` : '',
      ),
    ),
  );
  const table =
    rows.length === 0
      ? h('p', { class: 'muted' }, status === 'all' ? 'No runs yet.' : `No ${status} runs.`)
      : h(
          'table',
          { class: 'runs' },
          h(
            'thead',
            null,
            h(
              'tr',
              null,
              ['Thread', 'Status', 'Step', 'Updated', 'Error'].map((t) => h('th', { scope: 'col' }, t)),
            ),
          ),
          h('tbody', null, rows),
        );
  const pager = h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    back.length > 0 || after
      ? h(
          'a',
          {
            href: listHref({
              graph,
              status: status === 'all' ? '' : status,
              after: back.at(-1) ?? '',
              back: back.length > 1 ? JSON.stringify(back.slice(0, -1)) : '',
            }),
          },
          '← Previous',
        )
      : null,
    page.next
      ? h(
          'a',
          {
            href: listHref({
              graph,
              status: status === 'all' ? '' : status,
              after: page.next,
              back: JSON.stringify([...back, after]),
            }),
            rel: 'next',
          },
          'Next →',
        )
      : null,
  );
  replace(body, table, pager);
}
