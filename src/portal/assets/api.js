// The public API, same origin, with the merchant's JWT. The token lives in this tab's sessionStorage: never a cookie,
// gone when the tab closes, unknown to other tabs and origins.
const TOKEN = 'portal.token';
let onSignedOut = () => {};

export const session = {
  token: () => sessionStorage.getItem(TOKEN),
  signIn: (token) => sessionStorage.setItem(TOKEN, token),
  signOut: () => sessionStorage.removeItem(TOKEN),
  // called when the API refuses the token (expired, or the account blocked): back to the login form
  onSignedOut: (fn) => void (onSignedOut = fn),
};

// In the sandbox (ACQUIRER=sandbox) the page says so (portal.html.ts): the test account's buttons are shown.
export const sandbox = document.querySelector('meta[name="portal-sandbox"]') !== null;

export class ApiError extends Error {
  constructor(status, body) {
    super(typeof body?.message === 'string' ? body.message : `Erro ${status}`);
    this.status = status;
    this.errors = Array.isArray(body?.errors) ? body.errors : [];
  }
}

// A key for one creation (a charge, a refund, a withdrawal): a second click or a retry after a lost answer repeats
// the same request, which the API answers once. crypto.randomUUID needs a secure context; getRandomValues does not.
export function idempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return 'portal-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// `blob`: a file's bytes as they came (a CSV's byte order mark kept), not text.
export async function api(method, path, { body, key, accept = 'application/json', blob = false } = {}) {
  const headers = { accept };
  const token = session.token();
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (key) headers['x-idempotency-key'] = key;
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new ApiError(0, { message: 'Sem conexão com o servidor. Tente de novo.' });
  }
  const json = (res.headers.get('content-type') || '').includes('json');
  const data = json ? await res.json() : blob && res.ok ? await res.blob() : await res.text();
  if (res.status === 401 && token) {
    session.signOut();
    onSignedOut('Sua sessão terminou. Entre de novo.');
  }
  if (!res.ok) throw new ApiError(res.status, json ? data : null);
  return data;
}

export const get = (path) => api('GET', path);
export const post = (path, body, key) => api('POST', path, { body: body ?? {}, key });
export const patch = (path, body) => api('PATCH', path, { body });
export const del = (path) => api('DELETE', path);

// `?page=2&limit=20` from an object, leaving out empty values
export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
