import { answerForm } from './answer-form.js';
import { api, apiPath } from './api.js';
import { diffTable } from './diff-view.js';
import { h, replace } from './dom.js';
import { age, pretty, statusOf } from './format.js';
import { runHref } from './links.js';

const HISTORY_PAGE = 100;

function stepItem(graph, cp, selected) {
  const status = statusOf(cp);
  return h(
    'li',
    { class: `step ${status}${selected ? ' selected' : ''}` },
    h(
      'a',
      {
        class: 'step-link',
        href: runHref(graph, cp.thread, { to: String(cp.step) }),
        'aria-current': selected ? 'step' : undefined,
      },
      h('span', { class: 'step-no' }, `Step ${cp.step}`),
      status === 'running' ? null : h('span', { class: `badge ${status}` }, status),
    ),
    h(
      'span',
      { class: 'meta' },
      cp.next.length > 0 ? `next: ${cp.next.join(', ')}` : 'end',
      cp.interruptNode ? ` · asked by ${cp.interruptNode}` : '',
      ' · ',
      h('time', { dateTime: cp.ts, title: cp.ts }, age(cp.ts)),
    ),
  );
}

function stepOptions(steps, value) {
  return steps.map((s) => h('option', { value: String(s), selected: s === value }, `step ${s}`));
}

function stepSelect(id, label, steps, value) {
  return h(
    'label',
    { class: 'inline', for: id },
    `${label} `,
    h('select', { id }, stepOptions(steps, value)),
  );
}

/** A run: its status, the question it waits on, its history as a timeline, and the diff of two steps. */
export async function renderRun(main, { params }) {
  const graph = params.get('graph');
  const thread = params.get('thread');
  const runPath = (...rest) => apiPath('graphs', graph, 'runs', thread, ...rest);
  const heading = h('h1', { tabIndex: -1, class: 'thread-title' }, thread);
  const headerInfo = h('p', { class: 'meta' });
  const questionBox = h('div');
  const timeline = h('ol', { class: 'timeline', 'aria-label': 'History, newest first' });
  const diffBox = h('div', { class: 'diff-box' });
  const stateBox = h('details', { class: 'state' });
  replace(
    main,
    h(
      'p',
      { class: 'crumbs' },
      h('a', { href: `#/runs?graph=${encodeURIComponent(graph)}` }, `← ${graph} runs`),
    ),
    heading,
    headerInfo,
    questionBox,
    h(
      'div',
      { class: 'columns' },
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'history-h' },
        h('h2', { id: 'history-h' }, 'History'),
        timeline,
      ),
      h(
        'section',
        { class: 'card grow', 'aria-labelledby': 'diff-h' },
        h('h2', { id: 'diff-h' }, 'State diff'),
        diffBox,
        stateBox,
      ),
    ),
  );
  heading.focus();

  // The steps the pickers offer, newest first: every step the timeline has loaded (it loads a page at a
  // time) and the two being compared, which may be older than the loaded page (`to=5` in the address).
  let steps = [];
  function knowSteps(more) {
    steps = [...new Set([...steps, ...more.filter((s) => s !== null && s !== undefined)])].sort(
      (a, b) => b - a,
    );
    for (const select of diffBox.querySelectorAll('select')) {
      const value = Number(select.value);
      select.replaceChildren(...stepOptions(steps, value));
    }
  }

  async function showDiff(fromStep, toStep) {
    const diff = await api(runPath('diff'), { query: { from: fromStep ?? undefined, to: toStep } });
    const before = diff.from === null ? {} : (await api(runPath('steps', String(diff.from)))).state;
    const after = await api(runPath('steps', String(diff.to)));
    knowSteps([diff.from, diff.to]);
    const fromSel = stepSelect('diff-from', 'From', steps, diff.from);
    const toSel = stepSelect('diff-to', 'to', steps, diff.to);
    const form = h(
      'form',
      {
        class: 'compare',
        onsubmit: (event) => {
          event.preventDefault();
          const from = Number(fromSel.querySelector('select').value);
          const to = Number(toSel.querySelector('select').value);
          showDiff(from, to);
        },
      },
      fromSel,
      toSel,
      h('button', { type: 'submit' }, 'Compare'),
    );
    replace(diffBox, form, diffTable(diff, before));
    replace(
      stateBox,
      h('summary', null, `Full state at step ${diff.to}`),
      h('pre', { class: 'json' }, pretty(after.state)),
    );
  }

  async function refresh() {
    const latest = await api(runPath());
    const status = statusOf(latest);
    replace(
      headerInfo,
      h('span', { class: `badge ${status}` }, status),
      ` ${graph} · step ${latest.step} · updated `,
      h('time', { dateTime: latest.ts, title: latest.ts }, age(latest.ts)),
      latest.error
        ? h('span', { class: 'error' }, ` · failed at ${latest.error.node ?? '?'}: ${latest.error.message}`)
        : null,
    );
    const { checkpoints } = await api(runPath('history'), { query: { limit: HISTORY_PAGE } });
    const to = params.has('to') ? Number(params.get('to')) : latest.step;
    replace(
      timeline,
      checkpoints.map((cp) => stepItem(graph, cp, cp.step === to)),
    );
    timeline.parentElement?.querySelector('button.older')?.remove();
    if (checkpoints.length === HISTORY_PAGE) {
      const older = h('button', { type: 'button', class: 'older' }, 'Older steps');
      older.addEventListener('click', async () => {
        older.disabled = true;
        const last = timeline.querySelector('li:last-of-type a');
        const beforeStep = Number(new URLSearchParams(last.hash.split('?')[1]).get('to'));
        const page = await api(runPath('history'), { query: { beforeStep, limit: HISTORY_PAGE } });
        timeline.append(...page.checkpoints.map((cp) => stepItem(graph, cp, false)));
        knowSteps(page.checkpoints.map((cp) => cp.step));
        if (page.checkpoints.length < HISTORY_PAGE) older.remove();
        else older.disabled = false;
      });
      timeline.after(older);
    }
    steps = [];
    knowSteps(checkpoints.map((cp) => cp.step));
    const from = params.has('from') ? Number(params.get('from')) : undefined;
    await showDiff(from, to);
    return latest;
  }

  // The question the run waits on, with its form. Once an answer settles (taken, or someone answered first)
  // the page reads the run again; a run that waits again gets the new question, under the last outcome.
  function showQuestion(cp, lastOutcome) {
    replace(
      questionBox,
      h(
        'section',
        { class: 'card approval', 'aria-labelledby': 'question-h' },
        h('h2', { id: 'question-h' }, `Waiting for an answer at ${cp.interruptNode ?? '?'}`),
        lastOutcome ?? null,
        answerForm(graph, cp, {
          onSettled: async () => {
            const outcome = questionBox.querySelector('.outcome');
            const now = await refresh();
            if (now.interrupted) showQuestion(now, outcome);
          },
        }),
      ),
    );
  }

  const latest = await refresh();
  if (latest.interrupted) showQuestion(latest);
}
