// The merchant portal: the login form, then the signed-in shell (navigation and one page at a time, chosen by the
// URL's hash: #/cobrancas, #/cobrancas/<id>, #/pix-automatico/<id>, …). Every page talks to the public API only (api.js).
import { html, render, useEffect, useState } from './lib.js';
import { get, post, session } from './api.js';
import { ErrorNotice, Field, lazy, useAction } from './ui.js';
import { Home } from './home.js';
import { ChargeDetail, Charges } from './charges.js';
import { Withdrawals } from './withdrawals.js';
import { Statement } from './statement.js';
import { WebhookDetail, Webhooks } from './webhooks.js';
import { ApiKeys } from './api-keys.js';

// Pix Automático's screens are loaded when first opened: the login and the other screens do not carry their bytes.
const Mandates = lazy(() => import('./mandates.js'), 'Mandates');
const MandateDetail = lazy(() => import('./mandate.js'), 'MandateDetail');
const RecurringChargeLink = lazy(() => import('./mandate.js'), 'RecurringChargeLink');

const NAV = [
  ['inicio', 'Início'],
  ['cobrancas', 'Cobranças'],
  ['pix-automatico', 'Pix Automático'],
  ['saques', 'Saques'],
  ['extrato', 'Extrato'],
  ['webhooks', 'Webhooks'],
  ['chaves', 'Chaves de API'],
];

function useHashRoute() {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const update = () => setRoute(read());
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return route;
}

function Login({ notice, onSignIn }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  useEffect(() => void (document.title = 'Entrar · Portal do lojista'), []);
  const submit = async (e) => {
    e.preventDefault();
    const done = await action.run(() => post('/v1/auth/login', { email, password }));
    if (done.ok) onSignIn(done.value.token);
  };
  return html`<main class="login" id="conteudo">
    <h1>Portal do lojista</h1>
    <p class="muted">Entre com o e-mail e a senha da sua conta.</p>
    ${notice && !action.error ? html`<p class="notice" role="status">${notice}</p>` : null}
    <form onSubmit=${submit} class="stack">
      <${Field}
        id="email"
        label="E-mail"
        type="email"
        autocomplete="username"
        required
        value=${email}
        onInput=${(e) => setEmail(e.currentTarget.value)}
      />
      <${Field}
        id="senha"
        label="Senha"
        type="password"
        autocomplete="current-password"
        required
        value=${password}
        onInput=${(e) => setPassword(e.currentTarget.value)}
      />
      <${ErrorNotice} error=${action.error} />
      <button class="button" type="submit" disabled=${action.busy}>Entrar</button>
    </form>
  </main>`;
}

function pageFor([section, id, ...rest]) {
  switch (section) {
    case 'cobrancas':
      return id ? html`<${ChargeDetail} id=${id} />` : html`<${Charges} />`;
    case 'pix-automatico':
      if (id === 'cobranca') return html`<${RecurringChargeLink} id=${rest[0]} />`;
      return id ? html`<${MandateDetail} id=${id} />` : html`<${Mandates} />`;
    case 'saques':
      return html`<${Withdrawals} />`;
    case 'extrato':
      return html`<${Statement} />`;
    case 'webhooks':
      return id ? html`<${WebhookDetail} id=${id} />` : html`<${Webhooks} />`;
    case 'chaves':
      return html`<${ApiKeys} />`;
    default:
      return html`<${Home} />`;
  }
}

function Shell({ route, onSignOut }) {
  const [merchant, setMerchant] = useState(null);
  useEffect(() => {
    get('/v1/merchants/me').then(
      (r) => setMerchant(r.merchant),
      () => {},
    );
  }, []);
  const section = NAV.some(([s]) => s === route[0]) ? route[0] : 'inicio';
  return html`<a class="skip" href="#conteudo" onClick=${skipToContent}>Pular para o conteúdo</a>
    <header class="top">
      <div class="brand">
        <span class="brand-name">Portal do lojista</span>
        ${merchant ? html`<span class="merchant-name">${merchant.name}</span>` : null}
      </div>
      <button type="button" class="button secondary" onClick=${onSignOut}>Sair</button>
    </header>
    <nav class="nav" aria-label="Principal">
      <ul>
        ${NAV.map(
          ([s, label]) =>
            html`<li>
              <a href=${`#/${s}`} aria-current=${s === section ? 'page' : undefined}>${label}</a>
            </li>`,
        )}
      </ul>
    </nav>
    <main id="conteudo" class="content">${pageFor([section, ...route.slice(1)])}</main>`;
}

// The skip link moves focus to the page's heading (a hash link would change the route).
function skipToContent(e) {
  e.preventDefault();
  document.querySelector('#conteudo h1')?.focus();
}

function App() {
  const [token, setToken] = useState(session.token());
  const [notice, setNotice] = useState(null);
  const route = useHashRoute();
  useEffect(() => {
    session.onSignedOut((message) => {
      setNotice(message);
      setToken(null);
    });
  }, []);
  if (!token)
    return html`<${Login}
      notice=${notice}
      onSignIn=${(t) => {
        session.signIn(t);
        setNotice(null);
        setToken(t);
      }}
    />`;
  return html`<${Shell}
    route=${route}
    onSignOut=${() => {
      session.signOut();
      setNotice('Você saiu do portal.');
      setToken(null);
    }}
  />`;
}

const root = document.getElementById('app');
root.textContent = '';
render(html`<${App} />`, root);
