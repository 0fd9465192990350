import { answerForm } from './answer-form.js';
import { api, apiPath } from './api.js';
import { h, replace } from './dom.js';
import { age } from './format.js';
import { runLink } from './links.js';

const PAGE = 20;

function card(graph, cp) {
  return h(
    'article',
    { class: 'card approval' },
    h(
      'header',
      null,
      h('h2', null, runLink(graph, cp.thread)),
      h(
        'p',
        { class: 'meta' },
        `${graph} · waiting at ${cp.interruptNode ?? '?'} · step ${cp.step} · `,
        h('time', { dateTime: cp.ts, title: cp.ts }, age(cp.ts)),
      ),
    ),
    answerForm(graph, cp),
  );
}

async function section(graph, after) {
  const page = await api(apiPath('graphs', graph, 'runs'), {
    query: { status: 'interrupted', limit: PAGE, after },
  });
  // The question is in each run's latest checkpoint; read them side by side.
  const latest = await Promise.all(
    page.runs.map((run) => api(apiPath('graphs', graph, 'runs', run.thread)).catch(() => undefined)),
  );
  return { cards: latest.filter((cp) => cp?.interrupted).map((cp) => card(graph, cp)), next: page.next };
}

/** Every interrupted run of every graph, each with its question and an answer form. */
export async function renderInbox(main, { graphs }) {
  const list = h('div', { class: 'stack' });
  const heading = h('h1', { tabIndex: -1 }, 'Approvals');
  const summary = h('p', { class: 'muted', 'aria-live': 'polite' }, 'Loading…');
  replace(main, heading, summary, list);
  heading.focus();
  let total = 0;
  // The graphs whose listing has another page: while any has, the count is a lower bound ("20+").
  const unfinished = new Set();
  const showCount = () => {
    summary.textContent =
      total === 0
        ? 'Nothing is waiting for an answer.'
        : `${total}${unfinished.size > 0 ? '+' : ''} waiting for an answer.`;
  };
  for (const { name } of graphs) {
    const { cards, next } = await section(name, undefined);
    total += cards.length;
    list.append(...cards);
    let after = next;
    if (after !== null) {
      unfinished.add(name);
      const button = h('button', { type: 'button' }, `More from ${name}`);
      button.addEventListener('click', async () => {
        button.disabled = true;
        try {
          const page = await section(name, after);
          button.before(...page.cards);
          total += page.cards.length;
          after = page.next;
          if (after === null) {
            unfinished.delete(name);
            button.remove();
          }
          showCount();
        } finally {
          button.disabled = false;
        }
      });
      list.append(button);
    }
  }
  showCount();
}
