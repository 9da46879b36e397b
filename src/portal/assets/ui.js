// Pieces every page uses: the page heading (focused on arrival, for screen readers and keyboards), loading data,
// errors, fields, badges, paging, a secret shown once and its Copiar button, polling, screens loaded when first shown.
import { html, useCallback, useEffect, useRef, useState } from './lib.js';
import { tone } from './format.js';

export function Page({ title, children, actions }) {
  const heading = useRef(null);
  useEffect(() => {
    document.title = `${title} · Portal do lojista`;
    heading.current?.focus();
  }, [title]);
  return html`<div class="page">
    <div class="page-head">
      <h1 tabindex="-1" ref=${heading}>${title}</h1>
      ${actions}
    </div>
    ${children}
  </div>`;
}

// Runs `load` on mount and whenever `deps` change; `reload` runs it again; `quiet` reloads keep the old data shown.
export function useLoad(load, deps) {
  const [state, setState] = useState({ data: null, error: null, loading: true });
  const seq = useRef(0);
  const run = useCallback(async (quiet) => {
    const mine = ++seq.current;
    if (!quiet) setState((s) => ({ ...s, loading: true }));
    try {
      const data = await load();
      if (mine === seq.current) setState({ data, error: null, loading: false });
    } catch (error) {
      if (mine === seq.current) setState((s) => ({ data: quiet ? s.data : null, error, loading: false }));
    }
  }, deps);
  useEffect(() => void run(false), [run]);
  return { ...state, reload: () => run(true) };
}

// Calls `fn` every `ms` while `active` (e.g. a charge waiting for its payment), and stops when the page goes.
export function usePolling(active, fn, ms = 2000) {
  const latest = useRef(fn);
  latest.current = fn;
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(() => document.hidden || latest.current(), ms);
    return () => clearInterval(timer);
  }, [active, ms]);
}

export function Loading({ state, children }) {
  if (state.loading) return html`<p class="muted" role="status">Carregando…</p>`;
  if (state.error && !state.data) return html`<${ErrorNotice} error=${state.error} />`;
  return children(state.data);
}

export function ErrorNotice({ error }) {
  if (!error) return null;
  return html`<div class="notice notice-error" role="alert">
    <p>${error.message}</p>
    ${
      error.errors?.length
        ? html`<ul>
            ${error.errors.map((e) => html`<li>${e.message}</li>`)}
          </ul>`
        : null
    }
  </div>`;
}

export function Success({ children }) {
  return children ? html`<div class="notice notice-ok" role="status">${children}</div>` : null;
}

export function Field({ id, label, hint, children, ...input }) {
  const hintId = hint ? `${id}-hint` : undefined;
  return html`<div class="field">
    <label for=${id}>${label}</label>
    ${children ?? html`<input id=${id} name=${id} aria-describedby=${hintId} ...${input} />`}
    ${hint ? html`<p class="hint" id=${hintId}>${hint}</p>` : null}
  </div>`;
}

// A listing's status filter: "Todas" or one of `labels`; a change goes back to the first page (onChange).
export const StatusFilter = ({ id, value, labels, onChange }) =>
  html`<div class="field inline">
    <label for=${id}>Status</label>
    <select id=${id} value=${value} onChange=${(e) => onChange(e.currentTarget.value)}>
      <option value="">Todas</option>
      ${Object.entries(labels).map(([v, label]) => html`<option value=${v}>${label}</option>`)}
    </select>
  </div>`;

export const Badge = ({ status, labels }) =>
  html`<span class="badge" data-tone=${tone(status)}>${labels[status] ?? status}</span>`;

export function Pager({ page, limit, total, onPage, label }) {
  const pages = Math.max(1, Math.ceil(total / limit));
  if (pages <= 1) return null;
  return html`<nav class="pager" aria-label=${`Páginas de ${label}`}>
    <button type="button" class="button secondary" disabled=${page <= 1} onClick=${() => onPage(page - 1)}>
      Anterior
    </button>
    <span>Página ${page} de ${pages}</span>
    <button type="button" class="button secondary" disabled=${page >= pages} onClick=${() => onPage(page + 1)}>
      Próxima
    </button>
  </nav>`;
}

// Copiar: writes `value` to the clipboard and says so where a screen reader hears it (the status is in the page
// before it changes). Without a clipboard (a page not served over https or localhost) the field `target` is selected
// for Ctrl+C.
export function CopyButton({ value, target, label = 'Copiar' }) {
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setSaid('Copiado');
    } catch {
      const field = target ? document.getElementById(target) : null;
      field?.focus();
      field?.select();
      setSaid('Não foi possível copiar: o valor está selecionado, copie com Ctrl+C.');
    }
  };
  return html`<span class="copy">
    <button type="button" class="button secondary" onClick=${copy}>${label}</button>
    <span class="copy-status" role="status" aria-live="polite">${said}</span>
  </span>`;
}

// A secret the API shows once (an API key, a webhook's signing secret): in a read-only field the merchant can
// select or copy (Copiar), until it says it has kept it.
export function SecretOnce({ id, title, value, onDone }) {
  const field = useRef(null);
  useEffect(() => field.current?.focus(), []);
  return html`<section class="secret" aria-labelledby=${`${id}-title`}>
    <h2 id=${`${id}-title`}>${title}</h2>
    <p>Copie e guarde agora: este valor não será mostrado de novo.</p>
    <label for=${id}>Valor</label>
    <input id=${id} class="code" readonly value=${value} ref=${field} onFocus=${(e) => e.currentTarget.select()} />
    <div class="actions">
      <${CopyButton} value=${value} target=${id} />
      <button type="button" class="button" onClick=${onDone}>Já copiei</button>
    </div>
  </section>`;
}

// A list as a table on wide screens and as cards on a phone (the stylesheet shows each cell's data-label there).
export function Table({ caption, columns, rows, empty }) {
  if (!rows.length) return html`<p class="muted">${empty}</p>`;
  return html`<table class="list">
    <caption class="visually-hidden">
      ${caption}
    </caption>
    <thead>
      <tr>
        ${columns.map((c) => html`<th scope="col" class=${c.num ? 'num' : ''}>${c.label}</th>`)}
      </tr>
    </thead>
    <tbody>
      ${rows.map(
        (row) =>
          html`<tr key=${row.id}>
            ${columns.map((c) => html`<td data-label=${c.label} class=${c.num ? 'num' : ''}>${c.cell(row)}</td>`)}
          </tr>`,
      )}
    </tbody>
  </table>`;
}

// Runs a form's action, keeping what is going on for the form to show: `busy` (its button disabled), `error`.
// `run` resolves to { ok, value }.
export function useAction() {
  const [state, setState] = useState({ busy: false, error: null });
  const run = async (fn) => {
    setState({ busy: true, error: null });
    try {
      const value = await fn();
      setState({ busy: false, error: null });
      return { ok: true, value };
    } catch (error) {
      setState({ busy: false, error });
      return { ok: false };
    }
  };
  return { ...state, run };
}

// A screen whose module is loaded when first shown (`load`: a dynamic import()), so the login and the other screens
// do not carry its bytes.
export function lazy(load, name) {
  let Screen = null;
  return function Lazy(props) {
    const [, setLoaded] = useState(false);
    const [error, setError] = useState(null);
    useEffect(() => {
      if (!Screen)
        load().then(
          (module) => {
            Screen = module[name];
            setLoaded(true);
          },
          () => setError({ message: 'Não foi possível carregar esta tela. Recarregue a página.' }),
        );
    }, []);
    if (error) return html`<${ErrorNotice} error=${error} />`;
    return Screen ? html`<${Screen} ...${props} />` : html`<p class="muted" role="status">Carregando…</p>`;
  };
}
