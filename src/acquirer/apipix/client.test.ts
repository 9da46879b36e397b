// The API Pix client against the PSP stub: real HTTPS with client certificates on 127.0.0.1, one stub per test.
import test from 'ava';
import { get as httpsGet } from 'node:https';
import { parseBrCode } from '../../pix/brcode.ts';
import { createApiPixClient } from './client.ts';
import { ApiPixError } from './errors.ts';
import {
  apiPixError,
  apiPixFixture,
  newTxid as txid,
  totalCalls as total,
} from '../../../test/support/apipix/fixture.ts';

const { certs, setup } = apiPixFixture();

test('a cob is created with the amount as "10.50", gets a valid BR Code, and is canceled by PATCH', async (t) => {
  const { stub, client } = await setup(t);
  const id = txid();
  const cob = await client.putCob(id, {
    expiracao: 3600,
    amount: 1050,
    solicitacaoPagador: 'Pedido 1',
    devedor: { cpf: '12345678909', nome: 'Fulano' },
  });
  t.like(cob, {
    txid: id,
    status: 'ATIVA',
    amount: 1050,
    valor: { original: '10.50' },
    chave: stub.pixKey,
    calendario: { expiracao: 3600 },
  });
  const brCode = parseBrCode(cob.pixCopiaECola!);
  t.true(brCode.crcValid);
  t.is(brCode.merchantAccount['25'], cob.location ?? 'no location');
  t.is(brCode.fields['54'], '10.50');
  const canceled = await client.patchCob(id, { status: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' });
  t.is(canceled.status, 'REMOVIDA_PELO_USUARIO_RECEBEDOR');
  t.is((await client.getCob(id)).status, 'REMOVIDA_PELO_USUARIO_RECEBEDOR');
  t.is(stub.state.cobs.get(id)?.revisao, 1);
});

test('amounts reach the PSP exactly at the edges, and a float never leaves the process', async (t) => {
  const { stub, client } = await setup(t);
  for (const [amount, wire] of [
    [1, '0.01'],
    [1_234_567_890, '12345678.90'],
  ] as const) {
    const id = txid();
    t.is((await client.putCob(id, { expiracao: 60, amount })).amount, amount);
    t.is(stub.state.cobs.get(id)?.valor.original, wire);
  }
  const before = total(stub.calls);
  await t.throwsAsync(client.putCob(txid(), { expiracao: 60, amount: 10.5 }), { instanceOf: RangeError });
  await t.throwsAsync(client.putEnvio('abc', { amount: 0.1, favorecido: { chave: 'x@y.z' } }), {
    instanceOf: RangeError,
  });
  await t.throwsAsync(client.getCob('short'), { instanceOf: RangeError });
  t.is(total(stub.calls), before);
});

test('the token is requested once and reused across calls', async (t) => {
  const { stub, client } = await setup(t);
  const id = txid();
  await client.putCob(id, { expiracao: 60, amount: 100 });
  await client.getCob(id);
  await client.getCob(id);
  t.is(stub.tokensIssued, 1);
  t.is(stub.calls['POST /oauth/token'], 1);
});

test('concurrent calls on a fresh client share one token request', async (t) => {
  const { stub, client } = await setup(t);
  const id = txid();
  const results = await Promise.allSettled(Array.from({ length: 10 }, () => client.getCob(id)));
  t.true(results.every((r) => r.status === 'rejected' && (r.reason as ApiPixError).kind === 'not_found'));
  t.is(stub.calls['POST /oauth/token'], 1);
  t.is(stub.calls['GET /v2/cob/:txid'], 10);
});

test('the token is renewed shortly before it expires, so the PSP never sees it expired', async (t) => {
  const { stub, client } = await setup(t, { tokenTtlSeconds: 2 }, { tokenMarginMs: 500 });
  const id = txid();
  await client.putCob(id, { expiracao: 60, amount: 100 });
  await new Promise((r) => setTimeout(r, 1_600)); // past 2 s - 0.5 s: renewed though still valid at the PSP
  await client.getCob(id);
  t.is(stub.tokensIssued, 2);
  t.is(stub.calls['PUT /v2/cob/:txid'] + stub.calls['GET /v2/cob/:txid'], 2); // no 401 and no second try
});

test('a 401 forces exactly one token refresh and one retry of that call', async (t) => {
  const { stub, client } = await setup(t);
  const id = txid();
  await client.putCob(id, { expiracao: 60, amount: 100 });
  stub.revokeTokens();
  t.is((await client.getCob(id)).txid, id);
  t.is(stub.tokensIssued, 2);
  t.is(stub.calls['GET /v2/cob/:txid'], 2);

  stub.failNext(10, { status: 401, body: { title: 'Não autorizado.', status: 401 } }, { route: 'GET /v2/cob/:txid' });
  const err = await apiPixError(t, client.getCob(id));
  t.like(err, { kind: 'refused', status: 401, call: 'GET /v2/cob/{txid}' });
  t.is(stub.tokensIssued, 3);
  t.is(stub.calls['GET /v2/cob/:txid'], 4);
});

test('bad client credentials are refused at the token endpoint, without the secret in the error', async (t) => {
  const { stub, client } = await setup(t, {}, { clientSecret: 'wrong-secret-value' });
  const err = await apiPixError(t, client.getPix('E12345678202601011200abcdefghijk'));
  t.like(err, { kind: 'refused', status: 401, call: 'POST /oauth/token' });
  t.is(stub.calls['POST /oauth/token'], 1); // never retried
  t.false('GET /v2/pix/:e2eid' in stub.calls);
  t.false(JSON.stringify({ ...err, message: err.message }).includes('wrong-secret-value'));
});

test('a client whose certificate the PSP does not trust is refused before any request is handled', async (t) => {
  const { stub, client } = await setup(t, {}, { cert: certs().rogueClient.cert, key: certs().rogueClient.key });
  const err = await apiPixError(t, client.getCob(txid()));
  t.like(err, { kind: 'unavailable', status: null });
  t.truthy(err.code);
  // Without any certificate the handshake fails the same way.
  const bare = await new Promise<string>((resolve) => {
    httpsGet(`${stub.baseUrl}/v2/pix`, { ca: stub.ca }, (res) => resolve(`answered ${res.statusCode}`)).on(
      'error',
      (e) => resolve(`error ${(e as NodeJS.ErrnoException).code}`),
    );
  });
  t.regex(bare, /^error /);
  t.is(total(stub.calls), 0);
});

test('PUT and GET are retried with backoff on 503 and dropped connections', async (t) => {
  const { stub, client } = await setup(t, {}, { retry: { limit: 3, baseDelayMs: 100, maxDelayMs: 1_000 } });
  const id = txid();
  stub.failNext(2, { status: 503 });
  const started = performance.now();
  await client.putCob(id, { expiracao: 60, amount: 500 });
  t.true(performance.now() - started >= 140, 'waited 50-100 ms, then 100-200 ms'); // jittered backoff, doubling
  t.is(stub.calls['PUT /v2/cob/:txid'], 3);
  t.is(stub.state.cobs.size, 1);
  stub.failNext(1, { drop: true });
  t.is((await client.getCob(id)).txid, id);
  t.is(stub.calls['GET /v2/cob/:txid'], 2);
});

test('Retry-After of a 429 is honoured', async (t) => {
  const { stub, client } = await setup(t);
  stub.failNext(1, { status: 429, headers: { 'retry-after': '1' } });
  const started = performance.now();
  await t.throwsAsync(client.getPix('E12345678202601011200abcdefghijk'), { instanceOf: ApiPixError, message: /404/ });
  t.true(performance.now() - started >= 950);
  t.is(stub.calls['GET /v2/pix/:e2eid'], 2);
});

test('5xx past the retries is unavailable with the PSP problem; 4xx is refused at once; 404 is not_found', async (t) => {
  const { stub, client } = await setup(t);
  stub.failNext(5, {
    status: 503,
    body: {
      type: 'https://pix.bcb.gov.br/api/v2/error/ServicoIndisponivel',
      title: 'Serviço Indisponível',
      status: 503,
      detail: 'Manutenção.',
    },
  });
  const down = await apiPixError(t, client.getCob(txid()));
  t.like(down, { kind: 'unavailable', status: 503, problem: { title: 'Serviço Indisponível', detail: 'Manutenção.' } });
  t.is(stub.calls['GET /v2/cob/:txid'], 3); // 1 + limit 2
  stub.clearFailures();

  const other = createApiPixClient({
    baseUrl: stub.baseUrl,
    clientId: stub.clientId,
    clientSecret: stub.clientSecret,
    cert: stub.clientCert,
    key: stub.clientKey,
    ca: stub.ca,
    pixKey: 'not-our-key@example.com',
  });
  t.teardown(() => other.close());
  const refused = await apiPixError(t, other.putCob(txid(), { expiracao: 60, amount: 100 }));
  t.like(refused, { kind: 'refused', status: 400 });
  t.is(refused.problem?.violacoes?.[0]?.propriedade, 'cob.chave');
  t.is(stub.calls['PUT /v2/cob/:txid'], 1);

  t.like(await apiPixError(t, client.getPix('E00000000202601011200zzzzzzzzzzz')), { kind: 'not_found', status: 404 });
});

test('a 2xx answer that breaks the standard is unavailable, not trusted', async (t) => {
  const { stub, client } = await setup(t);
  stub.failNext(1, {
    status: 200,
    body: { endToEndId: 'E12345678202601011200abcdefghijk', valor: '10.5', horario: '2026-01-01T12:00:00Z' },
  });
  const err = await apiPixError(t, client.getPix('E12345678202601011200abcdefghijk'));
  t.like(err, { kind: 'unavailable', status: 200 });
  t.regex(err.message, /pix\.valor/);
});

test('a timeout is unavailable after the retries', async (t) => {
  const { stub, client } = await setup(t, {}, { timeoutMs: 500, retry: { limit: 1, baseDelayMs: 10 } });
  await t.throwsAsync(client.getPix('E12345678202601011200abcdefghijk')); // token and TLS session in place first
  stub.failNext(2, { delayMs: 1_500 });
  const err = await apiPixError(t, client.getCob(txid()));
  t.like(err, { kind: 'unavailable', status: null, code: 'ETIMEDOUT', call: 'GET /v2/cob/{txid}' });
  t.is(stub.calls['GET /v2/cob/:txid'], 2);
});

test('POST defesa and POST token are never retried', async (t) => {
  const { stub, client } = await setup(t);
  const { pix } = await stub.pay(txid(), { amount: 1050 });
  const infracao = stub.openInfracao({ endToEndId: pix.endToEndId, amount: 1050 });
  stub.failNext(1, { status: 503 }, { route: 'POST /v2/gn/infracoes/:idInfracao/defesa' });
  t.like(await apiPixError(t, client.postDefesa(infracao.idInfracao, { justificativa: 'Entregue.' })), {
    kind: 'unavailable',
    status: 503,
  });
  stub.failNext(1, { drop: true }, { route: 'POST /v2/gn/infracoes/:idInfracao/defesa' });
  t.like(await apiPixError(t, client.postDefesa(infracao.idInfracao, { justificativa: 'Entregue.' })), {
    kind: 'unavailable',
    status: null,
  });
  t.is(stub.calls['POST /v2/gn/infracoes/:idInfracao/defesa'], 2);
  t.is(infracao.status, 'ABERTA');

  const fresh = await setup(t);
  fresh.stub.failNext(1, { status: 503 }, { route: 'POST /oauth/token' });
  t.like(await apiPixError(t, fresh.client.getCob(txid())), {
    kind: 'unavailable',
    status: 503,
    call: 'POST /oauth/token',
  });
  t.is(fresh.stub.calls['POST /oauth/token'], 1);
  t.false('GET /v2/cob/:txid' in fresh.stub.calls);
});
