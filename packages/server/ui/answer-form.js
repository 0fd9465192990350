import { ApiError, api, apiPath } from './api.js';
import { h, replace } from './dom.js';
import { detailsOf, interruptIdOf, optionsOf, pretty, questionOf, short } from './format.js';
import { runLink } from './links.js';

let formCount = 0;

function outcomeView(graph, result, verb) {
  const status = result.status;
  return h(
    'div',
    { class: `outcome ${status}`, role: 'status' },
    h(
      'strong',
      null,
      status === 'interrupted' ? `${verb} — the run is waiting again` : `${verb} — the run is ${status}`,
    ),
    ` (step ${result.step}). `,
    status === 'interrupted' && result.interrupt
      ? h(
          'span',
          null,
          'Next question: ',
          short(questionOf(result.interrupt.payload) ?? result.interrupt.payload),
          '. ',
        )
      : null,
    runLink(graph, result.thread, 'Open the run'),
  );
}

function errorView(graph, thread, error, verb) {
  if (error instanceof ApiError && error.code === 'ALREADY_RESUMED') {
    return h(
      'div',
      { class: 'outcome already', role: 'alert' },
      h('strong', null, 'Already answered. '),
      'Someone answered this question first; your answer was not used. ',
      runLink(graph, thread, 'See what happened'),
    );
  }
  const where = error instanceof ApiError && error.node ? ` (node ${error.node})` : '';
  if (error instanceof ApiError && error.status === 422) {
    // The run took the answer and then failed (a later node threw, the step limit...): it was answered.
    return h(
      'div',
      { class: 'outcome failed', role: 'alert' },
      h('strong', null, `${verb} — the run failed${where}. `),
      `${error.code}: ${error.message} `,
      runLink(graph, thread, 'Open the run'),
    );
  }
  return h(
    'div',
    { class: 'outcome failed', role: 'alert' },
    h('strong', null, `Not ${verb.toLowerCase()}: ${error.code ?? 'error'}${where}. `),
    error.message,
  );
}

/**
 * The question of an interrupted run and the form that answers it: free text, JSON, or one click on an
 * option the payload lists. The answer carries the id of the interrupt shown, so an answer to a question
 * that was already answered is refused rather than applied to the next one. `onSettled` is told once the run
 * moved on: it took the answer (with its result; with nothing when the run then failed, a `422`), or someone
 * answered first (`ALREADY_RESUMED`).
 */
export function answerForm(graph, cp, { onSettled } = {}) {
  const id = ++formCount;
  // Stopped by `interruptBefore`: no interrupt() call waits (`interrupts` is `[]`) and the API refuses an
  // answer, so the form only continues the run.
  const pausedBefore = Array.isArray(cp.interrupts) && cp.interrupts.length === 0;
  const verb = pausedBefore ? 'Continued' : 'Answered';
  const payload = cp.interruptPayload;
  const question = questionOf(payload);
  const details = detailsOf(payload);
  const options = optionsOf(payload);
  const interruptId = interruptIdOf(cp);
  const result = h('div', { class: 'result', 'aria-live': 'polite' });
  const textarea = h('textarea', {
    id: `answer-${id}`,
    rows: 3,
    spellcheck: true,
    'aria-describedby': `hint-${id}`,
  });
  const asJson = h('input', { type: 'checkbox', id: `json-${id}` });
  const hint = h('p', { id: `hint-${id}`, class: 'hint' }, 'Sent as text.');
  asJson.addEventListener('change', () => {
    hint.textContent = asJson.checked ? 'Parsed as JSON: "yes", 42, true, {"ok": true}…' : 'Sent as text.';
    textarea.spellcheck = !asJson.checked;
  });
  const buttons = [];

  async function send(answer) {
    for (const b of buttons) b.disabled = true;
    replace(result, h('p', { class: 'muted' }, 'Sending…'));
    try {
      const body = pausedBefore ? {} : { answer };
      if (interruptId !== undefined) body.interrupt = interruptId;
      const outcome = await api(apiPath('graphs', graph, 'runs', cp.thread, 'resume'), {
        method: 'POST',
        body,
      });
      replace(result, outcomeView(graph, outcome, verb));
      onSettled?.(outcome);
    } catch (error) {
      replace(result, errorView(graph, cp.thread, error, verb));
      const final = error instanceof ApiError && (error.code === 'ALREADY_RESUMED' || error.status === 422);
      if (!final) for (const b of buttons) b.disabled = false;
      else onSettled?.();
    }
  }

  const submit = h('button', { type: 'submit', class: 'primary' }, 'Send answer');
  buttons.push(submit, textarea, asJson);
  const form = h(
    'form',
    {
      class: 'answer',
      onsubmit: (event) => {
        event.preventDefault();
        let answer = textarea.value;
        if (asJson.checked) {
          try {
            answer = JSON.parse(textarea.value);
          } catch {
            replace(result, h('p', { class: 'error', role: 'alert' }, 'That is not valid JSON.'));
            textarea.focus();
            return;
          }
        }
        send(answer);
      },
    },
    h('label', { for: `answer-${id}` }, 'Your answer'),
    textarea,
    hint,
    h('div', { class: 'actions' }, h('label', { class: 'inline' }, asJson, ' JSON'), submit),
  );
  const optionRow =
    options.length === 0
      ? null
      : h(
          'div',
          { class: 'options', role: 'group', 'aria-label': 'Answers offered' },
          options.map((option) => {
            const b = h('button', { type: 'button', onclick: () => send(option.value) }, option.label);
            buttons.push(b);
            return b;
          }),
        );
  if (pausedBefore) {
    const proceed = h(
      'button',
      { type: 'button', class: 'primary', onclick: () => send(undefined) },
      'Continue the run',
    );
    buttons.push(proceed);
    return h(
      'section',
      { class: 'question', 'aria-label': `Stopped before ${cp.interruptNode ?? 'a node'}` },
      h('p', { class: 'asked' }, `The run paused before ${cp.interruptNode ?? 'a node'}.`),
      h('p', { class: 'hint' }, 'It waits for no answer: continue it to run that node.'),
      h('div', { class: 'actions' }, proceed),
      result,
    );
  }
  return h(
    'section',
    { class: 'question', 'aria-label': `Question from ${cp.interruptNode ?? 'the run'}` },
    h('p', { class: 'asked' }, question ?? 'The run asks:'),
    details === undefined ? null : h('pre', { class: 'json' }, pretty(details)),
    optionRow,
    form,
    result,
  );
}
