import { h, replace } from './dom.js';

/** Asks for the server's token once; `onToken` gets it. */
export function renderTokenForm(main, { rejected, onToken }) {
  const input = h('input', {
    id: 'token',
    type: 'password',
    autocomplete: 'off',
    required: true,
    spellcheck: false,
  });
  const form = h(
    'form',
    {
      class: 'card narrow',
      onsubmit: (event) => {
        event.preventDefault();
        if (input.value.trim() !== '') onToken(input.value.trim());
      },
    },
    h('h1', { tabIndex: -1 }, 'Sign in'),
    h(
      'p',
      null,
      'Paste the token this server was started with. It is kept in this tab only, until you close it.',
    ),
    rejected ? h('p', { class: 'error', role: 'alert' }, 'That token was not accepted.') : null,
    h('label', { for: 'token' }, 'Token'),
    input,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Continue')),
  );
  replace(main, form);
  input.focus();
}
