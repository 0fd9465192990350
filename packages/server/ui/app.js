import { ApiError, api, token } from './api.js';
import { h, replace } from './dom.js';
import { renderInbox } from './inbox-view.js';
import { renderRun } from './run-view.js';
import { renderRuns } from './runs-view.js';
import { renderTokenForm } from './token-view.js';

const main = document.getElementById('main');
const signOut = document.getElementById('sign-out');
let graphs;

function route() {
  const [path, query = ''] = location.hash.replace(/^#/, '').split('?');
  return { path: path || '/inbox', params: new URLSearchParams(query) };
}

function askToken(rejected) {
  graphs = undefined;
  signOut.hidden = true;
  renderTokenForm(main, {
    rejected,
    onToken: (value) => {
      token.set(value);
      render();
    },
  });
}

function showError(error) {
  if (error instanceof ApiError && error.status === 401) return; // the token form is already shown
  replace(
    main,
    h('h1', { tabIndex: -1 }, 'Something went wrong'),
    h(
      'p',
      { class: 'error', role: 'alert' },
      error instanceof ApiError ? `${error.code}: ${error.message}` : String(error),
    ),
    h('p', null, h('a', { href: '#/inbox' }, 'Back to the approvals')),
  );
}

async function render() {
  const { path, params } = route();
  for (const link of document.querySelectorAll('[data-nav]')) {
    const current =
      path.startsWith(`/${link.dataset.nav}`) || (path === '/run' && link.dataset.nav === 'runs');
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  try {
    // Without a token, try once: a server started without auth answers, and nothing is asked.
    graphs ??= (await api('/api/graphs')).graphs;
    signOut.hidden = token.get() === null;
    if (path === '/runs') await renderRuns(main, { graphs, params });
    else if (path === '/run') await renderRun(main, { params });
    else await renderInbox(main, { graphs });
  } catch (error) {
    showError(error);
  }
}

window.addEventListener('flow:unauthorized', () => {
  const hadToken = token.get() !== null;
  token.clear();
  askToken(hadToken);
});
window.addEventListener('hashchange', render);
signOut.addEventListener('click', () => {
  token.clear();
  askToken(false);
});
render();
