// A local PSP speaking API Pix (+ Efí's envios and infrações) over HTTPS with client-certificate verification,
// state in memory, scripted by tests: payments, settlements, injected failures, call counters.
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { createEfiState, type EnvioOutcome, type OpenInfracaoInput } from './stub-efi.ts';
import { createPixState, type DuplicatePut, type PayInput } from './stub-pix.ts';
import { createCobVState, type PayCobVInput } from './stub-cobv.ts';
import { createRecState, STUB_ACCOUNT, type Callback } from './stub-rec.ts';
import { bcbViolations, compileBcbValidators } from './stub-schema.ts';
import { notFound, problem, type Reply } from './stub-support.ts';
import { createTestCerts, type TestCerts } from './test-certs.ts';
import type { DevolucaoStatus, EnvioStatus, InfracaoStatus, PixWire } from '../../../src/acquirer/apipix/types.ts';

export type StubFailure =
  | { status: number; body?: unknown; headers?: Record<string, string> } // answer this instead
  | { drop: true; after?: boolean } // close the socket without answering; `after`: once the request took effect
  | { delayMs: number; after?: boolean }; // answer normally, this much later; `after`: the request takes effect at once

export type ApiPixStubOptions = {
  certs?: TestCerts; // default: a fresh PKI in a temporary directory, removed by close()
  port?: number; // default: any free port on 127.0.0.1
  clientId?: string;
  clientSecret?: string;
  pixKey?: string; // the receiving account's key
  tokenTtlSeconds?: number;
  duplicatePut?: DuplicatePut; // default 'replay'
  envioOutcome?: EnvioOutcome;
  locationHost?: string;
};

type Handler = (
  params: Record<string, string>,
  body: unknown,
  query: URLSearchParams,
  headers: IncomingHttpHeaders,
) => Reply;
type Route = { key: string; method: string; regex: RegExp; handler: Handler; open?: boolean };

export type ApiPixStub = Awaited<ReturnType<typeof startApiPixStub>>;

export async function startApiPixStub(opts: ApiPixStubOptions = {}) {
  const certs = opts.certs ?? createTestCerts();
  const clientId = opts.clientId ?? 'stub-client-id';
  const clientSecret = opts.clientSecret ?? 'stub-client-secret';
  const pixKey = opts.pixKey ?? 'f3b2c1d0-1234-4abc-8def-0123456789ab';
  const now = () => new Date();
  const pixState = createPixState({
    pixKey,
    locationHost: opts.locationHost ?? 'pix.example.com',
    duplicatePut: opts.duplicatePut ?? 'replay',
    now,
  });
  const cobvState = createCobVState({
    pixKey,
    locationHost: opts.locationHost ?? 'pix.example.com',
    duplicatePut: opts.duplicatePut ?? 'replay',
    now,
    pix: pixState.pix,
  });
  const rec = createRecState({
    pixKey,
    locationHost: opts.locationHost ?? 'pix.example.com',
    now,
    pix: pixState.pix,
    cobs: pixState.cobs,
    cobvs: cobvState.cobvs,
  });
  const efi = createEfiState({
    pixKey,
    duplicatePut: opts.duplicatePut ?? 'replay',
    envioOutcome: opts.envioOutcome,
    now,
  });
  const tokens = new Map<string, number>(); // access token -> expiry (ms)
  let tokenTtlSeconds = opts.tokenTtlSeconds ?? 3600;
  const issuedTokens: string[] = []; // every token ever issued, so tests can look for leaks
  const calls: Record<string, number> = {};
  const failures: { remaining: number; failure: StubFailure; route?: string }[] = [];
  const notifications: { url: string; body: { pix: PixWire[] }; status: number | null }[] = [];
  // every rec/cobr callback sent (or that would have been: url null without a registered webhook)
  const callbacks: { kind: 'rec' | 'cobr'; url: string | null; body: unknown; status: number | null }[] = [];
  // every request body the standard's schema refused (answered 400 as a PSP would): a test expects none
  const schemaViolations: { route: string; body: unknown; violacoes: ReturnType<typeof bcbViolations> }[] = [];
  // every request body of the standard's operations, as received (route -> bodies), for tests to look at
  const bodies: Record<string, unknown[]> = {};

  const issueToken: Handler = (_p, body, _q, headers) => {
    const authorization = headers.authorization ?? '';
    const [id, secret] = Buffer.from(authorization.replace(/^Basic /i, ''), 'base64')
      .toString()
      .split(':');
    if (!authorization.startsWith('Basic ') || id !== clientId || secret !== clientSecret) {
      return { status: 401, body: { error: 'invalid_client', error_description: 'Credenciais inválidas.' } };
    }
    if ((body as { grant_type?: unknown })?.grant_type !== 'client_credentials')
      return { status: 400, body: { error: 'unsupported_grant_type' } };
    const token = randomBytes(24).toString('base64url');
    tokens.set(token, Date.now() + tokenTtlSeconds * 1000);
    issuedTokens.push(token);
    const scope =
      'cob.write cob.read pix.write pix.read webhook.write webhook.read rec.write rec.read solicrec.write cobr.write ' +
      'cobr.read payloadlocationrec.write webhookrec.write webhookcobr.write';
    return { status: 200, body: { access_token: token, token_type: 'Bearer', expires_in: tokenTtlSeconds, scope } };
  };

  const route = (method: string, pattern: string, handler: Handler, open = false): Route => ({
    key: `${method} ${pattern}`,
    method,
    handler,
    open,
    regex: new RegExp(`^${pattern.replace(/:(\w+)/g, '(?<$1>[^/]+)')}$`),
  });
  const routes: Route[] = [
    route('POST', '/oauth/token', issueToken, true),
    route('PUT', '/v2/cob/:txid', (p, b) => pixState.putCob(p.txid, b)),
    route('PATCH', '/v2/cob/:txid', (p, b) => pixState.patchCob(p.txid, b)),
    route('GET', '/v2/cob/:txid', (p) => pixState.getCob(p.txid)),
    route('PUT', '/v2/cobv/:txid', (p, b) => cobvState.putCobV(p.txid, b)),
    route('PATCH', '/v2/cobv/:txid', (p, b) => cobvState.patchCobV(p.txid, b)),
    route('GET', '/v2/cobv/:txid', (p) => cobvState.getCobV(p.txid)),
    route('GET', '/v2/pix', (_p, _b, q) => pixState.listPix(q)),
    route('GET', '/v2/pix/:e2eid', (p) => pixState.getPix(p.e2eid)),
    route('PUT', '/v2/pix/:e2eid/devolucao/:id', (p, b) => pixState.putDevolucao(p.e2eid, p.id, b)),
    route('GET', '/v2/pix/:e2eid/devolucao/:id', (p) => pixState.getDevolucao(p.e2eid, p.id)),
    route('PUT', '/v2/webhook/:chave', (p, b) => pixState.putWebhook(p.chave, b)),
    route('GET', '/v2/webhook/:chave', (p) => pixState.getWebhook(p.chave)),
    route('POST', '/v2/locrec', () => rec.handlers.postLocRec()),
    route('POST', '/v2/rec', (_p, b) => rec.handlers.postRec(b)),
    route('GET', '/v2/rec', (_p, _b, q) => rec.handlers.listRecs(q)),
    route('GET', '/v2/rec/:idRec', (p, _b, q) => rec.handlers.getRec(p.idRec, q)),
    route('PATCH', '/v2/rec/:idRec', (p, b) => rec.handlers.patchRec(p.idRec, b)),
    route('POST', '/v2/solicrec', (_p, b) => rec.handlers.postSolicRec(b)),
    route('PUT', '/v2/cobr/:txid', (p, b) => rec.handlers.putCobR(p.txid, b)),
    route('PATCH', '/v2/cobr/:txid', (p, b) => rec.handlers.patchCobR(p.txid, b)),
    route('GET', '/v2/cobr/:txid', (p) => rec.handlers.getCobR(p.txid)),
    route('GET', '/v2/cobr', (_p, _b, q) => rec.handlers.listCobRs(q)),
    route('POST', '/v2/cobr/:txid/retentativa/:data', (p) => rec.handlers.postRetentativa(p.txid, p.data)),
    route('PUT', '/v2/webhookrec', (_p, b) => rec.handlers.putWebhook('rec', b)),
    route('GET', '/v2/webhookrec', () => rec.handlers.getWebhook('rec')),
    route('PUT', '/v2/webhookcobr', (_p, b) => rec.handlers.putWebhook('cobr', b)),
    route('GET', '/v2/webhookcobr', () => rec.handlers.getWebhook('cobr')),
    route('PUT', '/v3/gn/pix/:idEnvio', (p, b) => efi.putEnvio(p.idEnvio, b)),
    route('GET', '/v2/gn/pix/enviados/id-envio/:idEnvio', (p) => efi.getEnvio(p.idEnvio)),
    route('GET', '/v2/gn/infracoes', (_p, _b, q) => efi.listInfracoes(q)),
    route('POST', '/v2/gn/infracoes/:idInfracao/defesa', (p, b) => efi.postDefesa(p.idInfracao, b)),
  ];

  compileBcbValidators(routes.map((r) => ({ method: r.method, route: r.key.slice(r.method.length + 1) })));

  function send(res: ServerResponse, reply: Reply) {
    const body = reply.body === undefined ? '' : JSON.stringify(reply.body);
    res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers }).end(body);
  }

  // Takes the first pending failure that applies: by default to API routes only, never the token endpoint.
  function nextFailure(key: string): StubFailure | undefined {
    const f = failures.find((x) => x.remaining > 0 && (x.route ? x.route === key : key !== 'POST /oauth/token'));
    if (!f) return undefined;
    f.remaining--;
    return f.failure;
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'https://stub');
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const found = routes
      .map((x) => ({ r: x, m: x.method === req.method ? x.regex.exec(url.pathname) : null }))
      .find((x) => x.m);
    if (!found?.m) return send(res, notFound('Recurso'));
    const { r, m } = found;
    calls[r.key] = (calls[r.key] ?? 0) + 1;
    const failure = nextFailure(r.key);
    if (failure && 'delayMs' in failure && !failure.after) await sleep(failure.delayMs);
    if (failure && 'drop' in failure && !failure.after) return void req.socket.destroy();
    if (failure && 'status' in failure) {
      return send(res, {
        status: failure.status,
        body: failure.body ?? { title: 'Falha injetada.', status: failure.status },
        headers: failure.headers,
      });
    }
    let body: unknown;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    } catch {
      return send(res, problem(400, 'RequisicaoInvalida', 'O corpo não é JSON.'));
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!r.open && !(bearer && (tokens.get(bearer) ?? 0) > Date.now()))
      return send(res, problem(401, 'AcessoNegado', 'Token ausente, inválido ou expirado.'));
    const pattern = r.key.slice(r.method.length + 1);
    if (body !== undefined) (bodies[r.key] ??= []).push(body);
    const violacoes = r.method === 'GET' ? [] : bcbViolations(r.method, pattern, body);
    if (violacoes.length) {
      schemaViolations.push({ route: r.key, body, violacoes });
      return send(res, problem(400, 'RequisicaoInvalida', 'O corpo não respeita o schema da API Pix.', violacoes));
    }
    const params = Object.fromEntries(Object.entries(m.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
    const reply = r.handler(params, body, url.searchParams, req.headers);
    if (failure && 'drop' in failure) return void req.socket.destroy(); // took effect, answer lost
    if (failure && 'delayMs' in failure && failure.after) await sleep(failure.delayMs, undefined, { ref: false }); // took effect, answer late
    send(res, reply);
  }

  // The PSP's callback: POST { pix: [...] } to the key's webhook URL + "/pix", as the standard describes.
  async function notify(p: PixWire): Promise<number | null> {
    const hook = pixState.webhooks.get(p.chave ?? pixKey);
    if (!hook) return null;
    const url = `${hook.webhookUrl.replace(/\/+$/, '')}/pix`;
    const body = { pix: [p] };
    const status = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(
      (r) => r.status,
      () => null,
    );
    notifications.push({ url, body, status });
    return status;
  }

  // A rec/cobr change, POSTed to the registered webhookrec + "/rec" or webhookcobr + "/cobr" (the standard's callbacks).
  async function callback(cb: Callback, send = true): Promise<number | null> {
    const hook = rec.webhooks[cb.kind];
    const url = hook ? `${hook.replace(/\/+$/, '')}/${cb.kind}` : null;
    const status =
      url && send
        ? await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(cb.body),
          }).then(
            (r) => r.status,
            () => null,
          )
        : null;
    callbacks.push({ kind: cb.kind, url: send ? url : null, body: cb.body, status });
    return status;
  }

  const server = createServer(
    { key: certs.server.key, cert: certs.server.cert, ca: certs.ca.cert, requestCert: true, rejectUnauthorized: true },
    (req, res) => {
      handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) send(res, { status: 500, body: { title: String(err) } });
      });
    },
  );
  server.listen(opts.port ?? 0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `https://127.0.0.1:${port}`,
    ca: certs.ca.cert,
    clientCert: certs.client.cert,
    clientKey: certs.client.key,
    certs,
    clientId,
    clientSecret,
    pixKey,
    calls, // "METHOD /route/:param" -> requests received, failed or not
    notifications,
    callbacks,
    account: STUB_ACCOUNT,
    schemaViolations,
    bodies,
    state: {
      cobs: pixState.cobs,
      cobvs: cobvState.cobvs,
      pix: pixState.pix,
      webhooks: pixState.webhooks,
      envios: efi.envios,
      infracoes: efi.infracoes,
      locrecs: rec.locs,
      recs: rec.recs,
      cobrs: rec.cobrs,
      recWebhooks: rec.webhooks,
    },
    issuedTokens,
    get tokensIssued() {
      return issuedTokens.length;
    },
    setTokenTtl(seconds: number) {
      tokenTtlSeconds = seconds;
    },
    revokeTokens() {
      tokens.clear();
    },
    failNext(n: number, failure: StubFailure, where: { route?: string } = {}) {
      failures.push({ remaining: n, failure, route: where.route });
    },
    clearFailures() {
      failures.length = 0;
    },
    // The payer pays (a cobv: the amount due on the day of `horario`, with its componentesValor); the registered webhook
    // (if any) is notified unless notify is false.
    async pay(txid: string, input: PayInput & PayCobVInput & { notify?: boolean } = {}) {
      const p = cobvState.cobvs.has(txid) ? cobvState.pay(txid, input) : pixState.pay(txid, input);
      const notified = input.notify === false ? null : await notify(p);
      return { pix: p, notified };
    },
    async settleDevolucao(
      e2eid: string,
      id: string,
      status: Exclude<DevolucaoStatus, 'EM_PROCESSAMENTO'>,
      motivo?: string,
    ) {
      const p = pixState.settleDevolucao(e2eid, id, status, motivo);
      return { pix: p, notified: await notify(p) };
    },
    settleEnvio: (idEnvio: string, status: EnvioStatus) => efi.settleEnvio(idEnvio, status),
    // Pix Automático, the payer's side. Each change is POSTed to the registered webhook (rec or cobr) unless
    // `notify: false` (a callback that never came); the status it got back is returned.
    approveRec: (idRec: string, o: { notify?: boolean } = {}) => callback(rec.controls.approveRec(idRec), o.notify),
    rejectRec: (idRec: string, o: { notify?: boolean } = {}) => callback(rec.controls.rejectRec(idRec), o.notify),
    rejectSolicRec: (idRec: string, o: { notify?: boolean } = {}) =>
      callback(rec.controls.rejectSolicRec(idRec), o.notify),
    payerCancelRec: (idRec: string, o: { notify?: boolean; reason?: string } = {}) =>
      callback(rec.controls.payerCancelRec(idRec, o.reason), o.notify),
    activateCobR: (txid: string, o: { notify?: boolean } = {}) => callback(rec.controls.activateCobR(txid), o.notify),
    payerCancelCobR: (txid: string, o: { notify?: boolean } = {}) =>
      callback(rec.controls.payerCancelCobR(txid), o.notify),
    // PAGA: the Pix with the cobr's txid arrives (notified to the Pix webhook as any payment) and the cobr's callback
    // follows; REJEITADA with `codigo` (default AC06, which ends nothing).
    async settleTentativa(
      txid: string,
      outcome: 'PAGA' | 'REJEITADA',
      o: { codigo?: string; notify?: boolean; notifyPix?: boolean } = {},
    ) {
      const r = rec.controls.settleTentativa(txid, outcome, o.codigo);
      const pixNotified = r.pix && o.notifyPix !== false ? await notify(r.pix) : null;
      const notified = await callback(r.cobr, o.notify);
      return { pix: r.pix, pixNotified, notified };
    },
    // the callback of a rec/cobr as it is now, sent again (a PSP's retry)
    resendRec: (idRec: string) => callback(rec.controls.recCallback(idRec)),
    resendCobR: (txid: string) => callback(rec.controls.cobrCallback(txid)),
    openInfracao: (input: OpenInfracaoInput) => efi.openInfracao(input),
    setInfracaoStatus: (idInfracao: string, status: InfracaoStatus) => efi.setInfracaoStatus(idInfracao, status),
    async close() {
      const closed = once(server, 'close');
      server.close();
      server.closeAllConnections(); // kept-alive client sockets would hold close() forever
      await closed;
      if (!opts.certs) certs.remove();
    },
  };
}

// The service's APIPIX_* variables for this stub and PKI (ACQUIRER=apipix), as an operator would set them, with the
// secrets ACQUIRER=apipix requires whatever NODE_ENV (never the development ones).
export const APIPIX_SECRETS = {
  JWT_SECRET: 'apipix-test-jwt-secret-'.padEnd(48, 'j'),
  ACQUIRER_WEBHOOK_SECRET: 'apipix-test-acquirer-secret-'.padEnd(48, 'a'),
  SECRETS_KEYS: `k1:${Buffer.alloc(32, 3).toString('base64')}`,
};

export function apiPixEnv(stub: ApiPixStub, certsDir: string, webhookToken: string): Record<string, string> {
  return {
    ...APIPIX_SECRETS,
    ACQUIRER: 'apipix',
    APIPIX_BASE_URL: stub.baseUrl,
    APIPIX_CLIENT_ID: stub.clientId,
    APIPIX_CLIENT_SECRET: stub.clientSecret,
    APIPIX_CERT_FILE: join(certsDir, 'client.pem'),
    APIPIX_KEY_FILE: join(certsDir, 'client.key'),
    APIPIX_CA_FILE: join(certsDir, 'ca.pem'),
    APIPIX_PIX_KEY: stub.pixKey,
    APIPIX_WEBHOOK_TOKEN: webhookToken,
    APIPIX_ACCOUNT: `${stub.account.agencia ?? ''}/${stub.account.conta}/${stub.account.tipoConta}`,
  };
}
