// Pix Automático over API Pix: the adapter's mandate and recurring-charge calls against the PSP stub, which checks
// every body against the BCB document and plays the payer's side.
import test, { type ExecutionContext } from 'ava';
import { startReceiver } from '../../../test/support/receiver.ts';
import { apiPixError, apiPixFixture, newTxid as txid } from '../../../test/support/apipix/fixture.ts';
import { bcbViolations } from '../../../test/support/apipix/stub-schema.ts';
import { parseBrCode } from '../../pix/brcode.ts';
import { createApiPixAcquirer } from './adapter.ts';
import { createApiPixClient } from './client.ts';
import { AcquirerRefusedError, AcquirerUnavailableError } from '../errors.ts';
import type { MandateRequest } from '../acquirer.ts';
import { plusDays } from '../../recurring/calendar.ts';
import { saoPauloDate } from '../../charges/due-date.ts';

const { setup } = apiPixFixture();
const today = () => saoPauloDate(new Date());
const REC_ID = /^R[RN][0-9]{8}[0-9]{8}[A-Za-z0-9]{11}$/;

const mandate = (over: Partial<MandateRequest> = {}): MandateRequest => ({
  journey: 'QR',
  customer: { name: 'Maria Pagadora', document: '52998224725' },
  contract: 'CTR-001',
  object: 'Assinatura mensal',
  frequency: 'MONTHLY',
  startDate: plusDays(today(), 3),
  endDate: null,
  amount: 4990,
  minAmount: null,
  retries: true,
  expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
  merchant: { name: 'Loja', city: 'SAO PAULO' },
  txid: null,
  amountOfPayment: null,
  ...over,
});

async function fixture(t: ExecutionContext) {
  const { stub, client } = await setup(t);
  return { stub, client, acquirer: createApiPixAcquirer(client) };
}

test("the standard's own examples pass the stub's schema (its self-contradictions resolved by its examples)", (t) => {
  const rec = {
    vinculo: { contrato: '63100862', devedor: { cpf: '45164632481', nome: 'Fulano de Tal' }, objeto: 'Streaming' },
    calendario: { dataFinal: '2025-04-01', dataInicial: '2024-04-01', periodicidade: 'MENSAL' },
    valor: { valorRec: '35.00' },
    politicaRetentativa: 'NAO_PERMITE',
    loc: 108,
    ativacao: { dadosJornada: { txid: '33beb661beda44a8928fef47dbeb2dc5' } },
  };
  t.deepEqual(bcbViolations('POST', '/v2/rec', rec), []);
  const solicrec = {
    idRec: 'RN123456782024011577825445612',
    calendario: { dataExpiracaoSolicitacao: '2023-12-20T12:17:11.926Z' },
    destinatario: { agencia: '2569', conta: '550689', cpf: '15231470190', ispbParticipante: '91193552' },
  };
  t.deepEqual(bcbViolations('POST', '/v2/solicrec', solicrec), []);
  t.not(bcbViolations('POST', '/v2/rec', { ...rec, vinculo: undefined }).length, 0);
  t.not(bcbViolations('PUT', '/v2/cobr/:txid', { idRec: rec.loc }).length, 0);
});

test('QR journey: locrec + rec, the recId as the contract writes it, the QR with the rec in field 80', async (t) => {
  const { stub, acquirer } = await fixture(t);
  const created = await acquirer.createMandate('m1', mandate());
  t.regex(created.recId, REC_ID);
  t.true(created.recId.startsWith('RR12345678'));
  const rec = stub.state.recs.get(created.recId)!;
  t.like(rec, {
    status: 'CRIADA',
    politicaRetentativa: 'PERMITE_3R_7D',
    valor: { valorRec: '49.90' },
    calendario: { periodicidade: 'MENSAL', dataInicial: plusDays(today(), 3) },
  });
  t.deepEqual(rec.vinculo, {
    contrato: 'CTR-001',
    objeto: 'Assinatura mensal',
    devedor: { cpf: '52998224725', nome: 'Maria Pagadora' },
  });
  t.is(created.location, rec.loc!.location);
  const qr = parseBrCode(created.qrCode!);
  t.true(qr.crcValid);
  t.is(qr.templates['80']['25'], rec.loc!.location);
  t.is(stub.calls['POST /v2/locrec'], 1);

  const push = await acquirer.createMandate(
    'm2',
    mandate({ journey: 'PUSH', retries: false, amount: null, minAmount: 1000 }),
  );
  t.deepEqual([push.qrCode, push.location], [null, null]);
  t.true(push.recId.startsWith('RN'));
  t.like(stub.state.recs.get(push.recId), {
    valor: { valorMinimoRecebedor: '10.00' },
    politicaRetentativa: 'NAO_PERMITE',
  });
  t.is(stub.state.recs.get(push.recId)!.loc, undefined);
  t.deepEqual(stub.schemaViolations, [], 'every body sent is valid by the standard');
});

test("QR_WITH_PAYMENT: the rec names the cob's txid and its QR carries both locations", async (t) => {
  const { stub, client, acquirer } = await fixture(t);
  const id = txid();
  const cob = await client.putCob(id, { expiracao: 3600, amount: 1500 });
  const created = await acquirer.createMandate(
    'm3',
    mandate({ journey: 'QR_WITH_PAYMENT', txid: id, amountOfPayment: 1500 }),
  );
  const rec = stub.state.recs.get(created.recId)!;
  t.is(rec.ativacao?.dadosJornada?.txid, id);
  const qr = parseBrCode(created.qrCode!);
  t.is(qr.templates['26']['25'], cob.location!);
  t.is(qr.templates['80']['25'], rec.loc!.location);
  t.is(qr.fields['54'], '15.00');
  t.deepEqual(stub.schemaViolations, [], 'every body sent is valid by the standard');
});

test('a rec the PSP made but whose QR never came back is cancelled, and the call is unavailable', async (t) => {
  const { stub, acquirer } = await fixture(t);
  stub.failNext(3, { status: 503 }, { route: 'GET /v2/rec/:idRec' });
  await t.throwsAsync(acquirer.createMandate('m4', mandate()), { instanceOf: AcquirerUnavailableError });
  const [rec] = [...stub.state.recs.values()];
  t.is(rec.status, 'CANCELADA');
  t.deepEqual(stub.schemaViolations, [], 'every body sent is valid by the standard');
});

test('PUSH: the solicitação goes once for a given expiry; the payer approves; getMandate and the listing say so', async (t) => {
  const { stub, acquirer } = await fixture(t);
  const { recId } = await acquirer.createMandate('m5', mandate({ journey: 'PUSH' }));
  const payerAccount = { ispb: '91193552', branch: '2569', account: '550689', document: '52998224725' };
  const expiresAt = new Date(Date.now() + 3600_000).toISOString();
  await acquirer.requestMandate('r1', { recId, payerAccount, expiresAt });
  await acquirer.requestMandate('r1', { recId, payerAccount, expiresAt }); // a retried job
  t.is(stub.calls['POST /v2/solicrec'], 1);
  t.like(stub.state.recs.get(recId)!.solicitacao![0].destinatario, {
    cpf: '52998224725',
    ispbParticipante: '91193552',
  });
  t.like(await acquirer.getMandate(recId), { status: 'CREATED', requestStatus: 'SENT', cancellation: null });

  const from = new Date(Date.now() - 1000);
  await stub.approveRec(recId);
  t.like(await acquirer.getMandate(recId), {
    recId,
    status: 'APPROVED',
    requestStatus: 'ACCEPTED',
    payerMaxAmount: null,
  });
  const listed = [];
  for await (const m of acquirer.mandatesBetween(from, new Date(Date.now() + 1000))) listed.push(m);
  t.deepEqual(
    listed.map((m) => [m.recId, m.status]),
    [[recId, 'APPROVED']],
  );
  t.is(await acquirer.getMandate('RR1234567820240115abcdefghijk'), null);
  t.deepEqual(stub.schemaViolations, [], 'every body sent is valid by the standard');
});

test('cancelMandate: by the merchant, idempotent; a payer cancellation reads as PAYER with its reason', async (t) => {
  const { stub, acquirer } = await fixture(t);
  const a = await acquirer.createMandate('m6', mandate());
  await acquirer.cancelMandate(a.recId);
  await acquirer.cancelMandate(a.recId);
  t.is(stub.calls['PATCH /v2/rec/:idRec'], 1);
  t.like(await acquirer.getMandate(a.recId), { status: 'CANCELED', cancellation: { by: 'MERCHANT' } });
  const b = await acquirer.createMandate('m7', mandate());
  await stub.approveRec(b.recId);
  await stub.payerCancelRec(b.recId, { reason: 'Não quero mais' });
  t.like(await acquirer.getMandate(b.recId), {
    status: 'CANCELED',
    cancellation: { by: 'PAYER', reason: 'Não quero mais' },
  });
  t.deepEqual(stub.schemaViolations, [], 'every body sent is valid by the standard');
});

test('a recurring charge: PUT cobr (idempotent), ATIVA with its tentativa, REJEITADA then a retentativa PAGA', async (t) => {
  const { stub, acquirer } = await fixture(t);
  const { recId } = await acquirer.createMandate('m8', mandate());
  await stub.approveRec(recId);
  const id = txid();
  const dueDate = plusDays(today(), 3);
  const input = { txid: id, recId, dueDate, amount: 4990, description: 'Mensalidade', payer: mandate().customer };
  await acquirer.createRecurringCharge(input);
  stub.failNext(1, { drop: true, after: true }, { route: 'PUT /v2/cobr/:txid' });
  await acquirer.createRecurringCharge(input); // its answer lost once: the transport repeats the PUT
  t.is(stub.state.cobrs.size, 1);
  t.like(stub.state.cobrs.get(id), {
    idRec: recId,
    valor: { original: '49.90' },
    ajusteDiaUtil: false,
    infoAdicional: 'Mensalidade',
    recebedor: stub.account,
    calendario: { dataDeVencimento: dueDate },
  });
  t.like(await acquirer.getRecurringCharge(id), { txid: id, status: 'CREATED', attempts: [] });

  await stub.activateCobR(id);
  t.like(await acquirer.getRecurringCharge(id), {
    status: 'ACTIVE',
    attempts: [{ date: dueDate, status: 'SCHEDULED', failureCode: null, endToEndId: null }],
  });
  await stub.settleTentativa(id, 'REJEITADA', { codigo: 'AC06' });
  t.like(await acquirer.getRecurringCharge(id), {
    status: 'ACTIVE',
    attempts: [{ status: 'REJECTED', failureCode: 'AC06' }],
  });

  const retry = plusDays(dueDate, 1);
  stub.failNext(1, { drop: true, after: true }, { route: 'POST /v2/cobr/:txid/retentativa/:data' });
  await t.throwsAsync(acquirer.retryRecurringCharge(id, retry), { instanceOf: AcquirerUnavailableError });
  await acquirer.retryRecurringCharge(id, retry); // the job's retry: the PSP refuses a second, the cobr has it
  t.is(stub.state.cobrs.get(id)!.tentativas.length, 2);
  const { pix } = await stub.settleTentativa(id, 'PAGA');
  const paid = await acquirer.getRecurringCharge(id);
  t.like(paid, {
    status: 'PAID',
    attempts: [{ status: 'REJECTED' }, { date: retry, status: 'PAID', endToEndId: pix!.endToEndId }],
  });
  t.like(await acquirer.confirmPayment({ txid: id, endToEndId: pix!.endToEndId, amount: 0, paidAt: '' }), {
    txid: id,
    amount: 4990,
  });
  t.deepEqual(stub.schemaViolations, [], 'every body sent is valid by the standard');
});

test('cancelRecurringCharge is idempotent; a retentativa the PSP refuses is refused; unknown txid is null', async (t) => {
  const { stub, acquirer } = await fixture(t);
  const { recId } = await acquirer.createMandate('m9', mandate({ retries: false }));
  await stub.approveRec(recId);
  const id = txid();
  await acquirer.createRecurringCharge({
    txid: id,
    recId,
    dueDate: plusDays(today(), 4),
    amount: 4990,
    description: null,
    payer: mandate().customer,
  });
  await stub.activateCobR(id);
  await stub.settleTentativa(id, 'REJEITADA');
  t.like(await acquirer.getRecurringCharge(id), { status: 'FAILED' }); // NAO_PERMITE: the cobr ends
  await t.throwsAsync(acquirer.retryRecurringCharge(id, plusDays(today(), 5)), { instanceOf: AcquirerRefusedError });
  await acquirer.cancelRecurringCharge(id); // already ended: nothing to do
  t.false('PATCH /v2/cobr/:txid' in stub.calls);

  const other = txid();
  await acquirer.createRecurringCharge({
    txid: other,
    recId,
    dueDate: plusDays(today(), 5),
    amount: 4990,
    description: null,
    payer: mandate().customer,
  });
  await acquirer.cancelRecurringCharge(other);
  await acquirer.cancelRecurringCharge(other);
  t.is(stub.calls['PATCH /v2/cobr/:txid'], 1);
  t.like(await acquirer.getRecurringCharge(other), { status: 'CANCELED' });
  t.is(await acquirer.getRecurringCharge(txid()), null);
  const from = new Date(Date.now() - 60_000);
  const listed = [];
  for await (const c of acquirer.recurringChargesBetween(from, new Date(Date.now() + 1000))) listed.push(c.txid);
  t.deepEqual(listed.sort(), [id, other].sort());
  t.deepEqual(stub.schemaViolations, [], 'every body sent is valid by the standard');
});

test('a cobr for another payer is refused; without the receiving account Pix Automático is refused', async (t) => {
  const { stub, acquirer } = await fixture(t);
  const { recId } = await acquirer.createMandate('m10', mandate());
  await stub.approveRec(recId);
  const refused = acquirer.createRecurringCharge({
    txid: txid(),
    recId,
    dueDate: plusDays(today(), 4),
    amount: 4990,
    description: null,
    payer: { name: 'Outro', document: '11144477735' },
  });
  await t.throwsAsync(refused, { instanceOf: AcquirerRefusedError });
  stub.schemaViolations.length = 0;
  const bare = createApiPixClient({
    baseUrl: stub.baseUrl,
    clientId: stub.clientId,
    clientSecret: stub.clientSecret,
    cert: stub.clientCert,
    key: stub.clientKey,
    ca: stub.ca,
    pixKey: stub.pixKey,
  });
  t.teardown(() => bare.close());
  await t.throwsAsync(createApiPixAcquirer(bare).createMandate('m11', mandate()), {
    instanceOf: AcquirerRefusedError,
    message: /conta recebedora/,
  });
  t.deepEqual(stub.schemaViolations, [], 'every body sent is valid by the standard');
});

test('webhookrec and webhookcobr are registered; the PSP posts rec changes to <url>/rec and cobr changes to <url>/cobr', async (t) => {
  const { stub, client, acquirer } = await fixture(t);
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  await client.putWebhookRec(receiver.url('/hook'));
  await client.putWebhookCobR(receiver.url('/hook'));
  t.is((await client.getWebhookRec()).webhookUrl, receiver.url('/hook'));
  t.is((await client.getWebhookCobR()).webhookUrl, receiver.url('/hook'));
  const { recId } = await acquirer.createMandate('m12', mandate());
  t.is(await stub.approveRec(recId), 200);
  const id = txid();
  await acquirer.createRecurringCharge({
    txid: id,
    recId,
    dueDate: plusDays(today(), 4),
    amount: 4990,
    description: null,
    payer: mandate().customer,
  });
  await stub.activateCobR(id);
  const [rec, cobr] = await receiver.waitFor(2);
  t.is(rec.path, '/hook/rec');
  t.like(JSON.parse(rec.body).recs[0], { idRec: recId, status: 'APROVADA' });
  t.is(cobr.path, '/hook/cobr');
  t.like(JSON.parse(cobr.body).cobsr[0], { idRec: recId, txid: id, status: 'ATIVA' });
  t.like(await apiPixError(t, client.getRec('RN1234567820240115abcdefghijk')), { kind: 'not_found' });
  t.deepEqual(stub.schemaViolations, [], 'every body sent is valid by the standard');
});

test("DUE_DATE_QR: the rec's QR is composed with the cobv's location (journey 4)", async (t) => {
  const { stub, client, acquirer } = await fixture(t);
  const id = txid();
  const cobv = await client.putCobV(id, {
    dataDeVencimento: plusDays(today(), 5),
    validadeAposVencimento: 30,
    amount: 9990,
    terms: { rebate: null, discount: null, fine: null, interest: null },
    devedor: { cpf: '52998224725', nome: 'Maria Pagadora' },
  });
  const created = await acquirer.createMandate('m13', mandate({ journey: 'DUE_DATE_QR', txid: id }));
  const rec = stub.state.recs.get(created.recId)!;
  t.is(rec.ativacao?.dadosJornada, undefined); // dadosJornada is journey 3's only
  const qr = parseBrCode(created.qrCode!);
  t.is(qr.templates['26']['25'], cobv.location!);
  t.is(qr.templates['80']['25'], rec.loc!.location);
  t.deepEqual(stub.schemaViolations, [], 'every body sent is valid by the standard');
});
