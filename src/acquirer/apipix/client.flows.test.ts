// The API Pix client's calls end to end against the PSP stub: Pix listing, devoluções, envios, infrações, webhooks.
import test from 'ava';
import { startReceiver } from '../../../test/support/receiver.ts';
import { apiPixError, apiPixFixture, newTxid as txid } from '../../../test/support/apipix/fixture.ts';

const { logs, setup } = apiPixFixture();
const DAY = 86_400_000;

test('GET /v2/pix is walked page by page within the range, filtered by txid when asked', async (t) => {
  const { stub, client } = await setup(t);
  const now = Date.now();
  const ids = [];
  for (let i = 0; i < 7; i++)
    ids.push((await stub.pay(txid(), { amount: 100 + i, horario: new Date(now - i * 1000) })).pix.endToEndId);
  await stub.pay(txid(), { amount: 999, horario: new Date(now - 2 * DAY) }); // outside the range
  const range = { inicio: new Date(now - DAY), fim: new Date(now + 1000) };

  const first = await client.listPix({ ...range, itensPorPagina: 3 });
  t.deepEqual(first.paginacao, {
    paginaAtual: 0,
    itensPorPagina: 3,
    quantidadeDePaginas: 3,
    quantidadeTotalDeItens: 7,
  });
  t.is(first.pix.length, 3);
  const before = stub.calls['GET /v2/pix'];
  const all = [];
  for await (const p of client.allPix({ ...range, itensPorPagina: 3 })) all.push(p);
  t.is(stub.calls['GET /v2/pix'] - before, 3);
  t.deepEqual(all.map((p) => p.endToEndId).sort(), [...ids].sort());
  t.deepEqual(all.map((p) => p.amount).sort(), [100, 101, 102, 103, 104, 105, 106]);

  const one = stub.state.pix.get(ids[2])!;
  t.deepEqual(
    (await client.listPix({ ...range, txid: one.txid })).pix.map((p) => p.endToEndId),
    [ids[2]],
  );
  t.like(await client.getPix(ids[2]), { endToEndId: ids[2], amount: 102, valor: '1.02', txid: one.txid });
});

test('a devolução is EM_PROCESSAMENTO, then DEVOLVIDO or NAO_REALIZADO as the PSP settles it', async (t) => {
  const { stub, client } = await setup(t);
  const { pix } = await stub.pay(txid(), { amount: 5000 });
  const asked = await client.putDevolucao(pix.endToEndId, 'dev1', { amount: 3000, descricao: 'Devolução do pedido' });
  t.like(asked, { id: 'dev1', status: 'EM_PROCESSAMENTO', valor: '30.00', amount: 3000 });
  t.is(asked.rtrId.length, 32);
  t.is((await client.putDevolucao(pix.endToEndId, 'dev1', { amount: 3000 })).rtrId, asked.rtrId); // same id: same devolução

  await stub.settleDevolucao(pix.endToEndId, 'dev1', 'DEVOLVIDO');
  t.like(await client.getDevolucao(pix.endToEndId, 'dev1'), { status: 'DEVOLVIDO', amount: 3000 });
  t.like((await client.getPix(pix.endToEndId)).devolucoes?.[0], { id: 'dev1', status: 'DEVOLVIDO', amount: 3000 });

  const over = await apiPixError(t, client.putDevolucao(pix.endToEndId, 'dev2', { amount: 2001 }));
  t.like(over, { kind: 'refused', status: 400 });
  await client.putDevolucao(pix.endToEndId, 'dev3', { amount: 2000 });
  await stub.settleDevolucao(pix.endToEndId, 'dev3', 'NAO_REALIZADO', 'Conta do pagador encerrada');
  t.like(await client.getDevolucao(pix.endToEndId, 'dev3'), {
    status: 'NAO_REALIZADO',
    motivo: 'Conta do pagador encerrada',
  });
  t.like(await apiPixError(t, client.getDevolucao(pix.endToEndId, 'nope')), { kind: 'not_found' });
});

test('an envio is idempotent by idEnvio: asking twice, or retrying after a lost answer, sends once', async (t) => {
  const { stub, client } = await setup(t);
  const input = { amount: 2550, favorecido: { chave: 'fornecedor@example.com' } };
  const first = await client.putEnvio('saque1', input);
  t.like(first, { idEnvio: 'saque1', status: 'EM_PROCESSAMENTO', amount: 2550, valor: '25.50' });
  t.is(first.e2eId?.length, 32);
  t.is((await client.putEnvio('saque1', input)).e2eId, first.e2eId);
  t.is(stub.state.envios.size, 1);
  t.is(stub.state.envios.get('saque1')?.favorecido?.chave, 'fornecedor@example.com');

  stub.failNext(1, { drop: true, after: true }); // the PSP takes the envio, the answer is lost, got retries
  const retried = await client.putEnvio('saque2', input);
  t.is(stub.calls['PUT /v3/gn/pix/:idEnvio'], 4);
  t.is(stub.state.envios.size, 2);
  t.is(retried.e2eId, stub.state.envios.get('saque2')?.e2eId ?? 'missing');

  const other = await apiPixError(t, client.putEnvio('saque1', { ...input, amount: 2551 }));
  t.like(other, { kind: 'refused', status: 409 });
  t.is(stub.state.envios.size, 2);
});

test('a PSP that refuses a repeated PUT still gives the retry its resource, never a second one', async (t) => {
  const { stub, client } = await setup(t, { duplicatePut: 'reject' });
  stub.failNext(1, { drop: true, after: true }, { route: 'PUT /v3/gn/pix/:idEnvio' });
  const envio = await client.putEnvio('saque3', { amount: 100, favorecido: { chave: '+5511999990000' } });
  t.is(envio.e2eId, stub.state.envios.get('saque3')?.e2eId ?? 'missing');
  t.is(stub.state.envios.size, 1);
  t.is(stub.calls['GET /v2/gn/pix/enviados/id-envio/:idEnvio'], 1); // learnt from the PSP, not assumed

  const id = txid();
  stub.failNext(1, { drop: true, after: true }, { route: 'PUT /v2/cob/:txid' });
  t.like(await client.putCob(id, { expiracao: 60, amount: 700 }), { txid: id, amount: 700, status: 'ATIVA' });
  t.is(stub.calls['PUT /v2/cob/:txid'], 2);
  t.is(stub.state.cobs.size, 1);
});

test('getEnvio is null for an idEnvio the PSP never received, and follows the envio to its end', async (t) => {
  const { stub, client } = await setup(t, {
    envioOutcome: (e) => (e.favorecido?.chave === 'fail@example.com' ? 'NAO_REALIZADO' : 'EM_PROCESSAMENTO'),
  });
  t.is(await client.getEnvio('neverSent'), null);
  await client.putEnvio('ok1', {
    amount: 100,
    favorecido: { chave: 'ok@example.com' },
    pagador: { infoPagador: 'Saque' },
  });
  t.like(await client.getEnvio('ok1'), { idEnvio: 'ok1', status: 'EM_PROCESSAMENTO', amount: 100 });
  stub.settleEnvio('ok1', 'REALIZADO');
  const done = await client.getEnvio('ok1');
  t.like(done, { status: 'REALIZADO', infoPagador: 'Saque' });
  t.truthy(done?.horario.liquidacao);
  t.is(done?.e2eId, stub.state.envios.get('ok1')?.e2eId ?? 'missing');
  const failed = await client.putEnvio('bad1', { amount: 100, favorecido: { chave: 'fail@example.com' } });
  t.is(failed.status, 'EM_PROCESSAMENTO'); // the PUT answers before the SPI does
  t.is((await client.getEnvio('bad1'))?.status, 'NAO_REALIZADO');
});

test('infrações are listed with exact amounts, and a defesa moves one to EM_DEFESA once', async (t) => {
  const { stub, client } = await setup(t);
  const { pix } = await stub.pay(txid(), { amount: 1050 });
  const opened = [
    stub.openInfracao({ endToEndId: pix.endToEndId, amount: 1050 }),
    stub.openInfracao({ endToEndId: pix.endToEndId, amount: 29 }),
  ];
  const range = { inicio: new Date(Date.now() - 60_000), fim: new Date(Date.now() + 60_000) };
  const listed = [];
  for await (const i of client.allInfracoes({ ...range, itensPorPagina: 1 })) listed.push(i);
  t.deepEqual(
    listed.map((i) => [i.idInfracao, i.amount, i.status]),
    opened.map((i) => [i.idInfracao, i === opened[0] ? 1050 : 29, 'ABERTA']),
  );
  t.is(listed[0].valor, 10.5);
  t.is(stub.calls['GET /v2/gn/infracoes'], 2);

  await client.postDefesa(opened[0].idInfracao, { justificativa: 'Produto entregue; comprovante anexo.' });
  t.like(stub.state.infracoes.get(opened[0].idInfracao), {
    status: 'EM_DEFESA',
    defesa: 'Produto entregue; comprovante anexo.',
  });
  t.like(await apiPixError(t, client.postDefesa(opened[0].idInfracao, { justificativa: 'De novo.' })), {
    kind: 'refused',
    status: 400,
  });
  stub.setInfracaoStatus(opened[0].idInfracao, 'REJEITADA');
  t.is((await client.listInfracoes(range)).infracoes[0].status, 'REJEITADA');
});

test('the webhook is registered for the key, and payments and settled devoluções are POSTed to <url>/pix', async (t) => {
  const { stub, client } = await setup(t);
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  await client.putWebhook(stub.pixKey, receiver.url('/v1/acquirer/apipix/tok'), { skipMtlsChecking: true });
  t.is((await client.getWebhook(stub.pixKey)).webhookUrl, receiver.url('/v1/acquirer/apipix/tok'));
  const id = txid();
  await client.putCob(id, { expiracao: 60, amount: 1234 });
  const { pix, notified } = await stub.pay(id);
  t.is(notified, 200);
  const [hit] = await receiver.waitFor(1);
  t.is(hit.path, '/v1/acquirer/apipix/tok/pix');
  t.deepEqual(JSON.parse(hit.body), {
    pix: [{ endToEndId: pix.endToEndId, txid: id, valor: '12.34', chave: stub.pixKey, horario: pix.horario }],
  });
  t.is((await client.getCob(id)).status, 'CONCLUIDA');

  await client.putDevolucao(pix.endToEndId, 'd1', { amount: 1234 });
  await stub.settleDevolucao(pix.endToEndId, 'd1', 'DEVOLVIDO');
  const [, second] = await receiver.waitFor(2);
  t.is(JSON.parse(second.body).pix[0].devolucoes[0].status, 'DEVOLVIDO');
  t.like(await apiPixError(t, client.getWebhook('outra-chave@example.com')), { kind: 'not_found' });
});

test('logs and errors never carry the token or the client secret', async (t) => {
  const { stub, client } = await setup(t);
  const id = txid();
  await client.putCob(id, { expiracao: 60, amount: 100 });
  stub.revokeTokens();
  stub.failNext(1, { status: 503 });
  await client.getCob(id);
  stub.failNext(5, { status: 500 });
  const err = await apiPixError(t, client.getCob(id));
  t.true(logs.some((l) => l.includes('API Pix call retried')));
  const seen = [...logs, err.message, JSON.stringify(err), err.stack ?? ''].join('\n');
  t.is(stub.tokensIssued, 2);
  for (const secret of [
    ...stub.issuedTokens,
    stub.clientSecret,
    Buffer.from(`${stub.clientId}:${stub.clientSecret}`).toString('base64'),
  ]) {
    t.false(seen.includes(secret), 'a secret leaked');
  }
  t.false(/bearer|basic /i.test(seen));
});
