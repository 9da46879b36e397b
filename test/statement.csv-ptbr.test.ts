import test from 'ava';
import { parse } from 'csv-parse/sync';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { createMerchant, createOnboardedMerchant } from './support/factories.ts';
import { waitUntil } from './support/receiver.ts';
import { decide } from '../src/infractions/infractions.states.ts';

// GET /v1/merchants/me/statement?format=csv&locale=pt-BR on the real API, worker and database: a merchant with
// charges, splits, a refund, a failed withdrawal and MED lines downloads its statement, a spreadsheet's reader
// (csv-parse, `;`, BOM) reads it back, and every column is the JSON's line in Brazilian form.
let app: TestApp;
let stopWorker: () => Promise<void>;
test.before(async () => {
  app = await startTestApp();
  stopWorker = await startBackground(app, 'worker');
});
test.after.always(async () => {
  await stopWorker?.();
  await app?.close();
});

type Merchant = Awaited<ReturnType<typeof createMerchant>>;
type Entry = {
  id: string;
  type: string;
  amount: number;
  balanceAfter: number;
  chargeId: string | null;
  withdrawalId: string | null;
  refundId: string | null;
  infractionId: string | null;
  recurringChargeId: string | null;
  createdAt: string;
};
const HEADER = [
  'Data',
  'Tipo',
  'Valor (R$)',
  'Saldo após (R$)',
  'Cobrança',
  'Saque',
  'Estorno',
  'Infração',
  'Lançamento',
];
const LABELS: Record<string, string> = {
  CHARGE_PAID: 'Cobrança recebida',
  SPLIT_RECEIVED: 'Split recebido',
  SPLIT_PAID: 'Split pago',
  REFUND: 'Estorno',
  WITHDRAWAL: 'Saque',
  WITHDRAWAL_REVERSED: 'Saque revertido',
  INFRACTION_BLOCK: 'Bloqueio MED',
  INFRACTION_RELEASE: 'Desbloqueio MED',
  INFRACTION_REFUND: 'Devolução MED',
  RECURRING_CHARGE_PAID: 'Pix Automático recebido',
};

const download = (m: Merchant, q: string) =>
  fetch(`${app.baseUrl}/v1/merchants/me/statement${q}`, { headers: { authorization: `Bearer ${m.token}` } });
const entries = async (m: Merchant): Promise<Entry[]> =>
  (await m.http.get('/v1/merchants/me/statement?limit=100')).body.entries;
const read = (bytes: Buffer): Record<string, string>[] =>
  parse(bytes, { delimiter: ';', bom: true, columns: true, skip_empty_lines: true });
// São Paulo has been UTC-03:00 all year since 2019: the expected text without Intl
const spTime = (iso: string) => {
  const d = new Date(Date.parse(iso) - 3 * 3_600_000).toISOString();
  return `${d.slice(8, 10)}/${d.slice(5, 7)}/${d.slice(0, 4)} ${d.slice(11, 19)}`;
};
const centavos = (text: string) => {
  const m = /^(-?)(\d+),(\d{2})$/.exec(text);
  if (!m) throw new Error(`not an amount: ${text}`);
  return (m[1] ? -1 : 1) * (Number(m[2]) * 100 + Number(m[3]));
};

async function charge(owner: Merchant, body: object) {
  const res = await owner.http.post('/v1/charges', { description: 'Pedido', ...body });
  if (res.status !== 201) throw new Error(`charge: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.charge;
}
async function pay(owner: Merchant, id: string) {
  if ((await owner.http.post(`/v1/sandbox/charges/${id}/pay`)).status !== 202) throw new Error('pay');
  await waitUntil(
    async () => (await owner.http.get(`/v1/charges/${id}`)).body.charge.status === 'PAID',
    15_000,
    'PAID',
  );
}

// a merchant with a paid charge split with a recipient, a refund, a failed withdrawal, a MED block and its release
async function busyMerchant() {
  const owner = await createOnboardedMerchant(app);
  const seller = await createMerchant(app, { kyc: 'APPROVED' });
  const c = await charge(owner, { amount: 123_456, splits: [{ merchantId: seller.merchantId, amount: 7000 }] });
  await pay(owner, c.id);
  const r = await owner.http.post(`/v1/charges/${c.id}/refunds`, { amount: 5 });
  if (r.status !== 202) throw new Error(`refund ${r.status}`);
  const w = await owner.http.post('/v1/merchants/me/withdrawals', {
    amount: 1000,
    pixKey: 'fail@sandbox.test',
    pixKeyType: 'EMAIL',
  });
  if (w.status !== 201) throw new Error(`withdrawal ${w.status}`);
  await waitUntil(
    async () => (await entries(owner)).some((e) => e.type === 'WITHDRAWAL_REVERSED'),
    15_000,
    'withdrawal reversed',
  );
  const c2 = await charge(owner, { amount: 2000 });
  await pay(owner, c2.id);
  const opened = await owner.http.post(`/v1/sandbox/charges/${c2.id}/infraction`, { reason: 'Golpe' });
  if (opened.status !== 201) throw new Error(`infraction ${opened.status}`);
  await decide(app.deps, app.orm.em.fork(), opened.body.infraction.id, 'reject');
  return { owner, seller };
}

test('pt-BR CSV: BOM, `;`, the header, every column of every line as the JSON says, Saldo após the running sum', async (t) => {
  const { owner, seller } = await busyMerchant();
  const json = await entries(owner);
  t.deepEqual(
    [...new Set(json.map((e) => e.type))].sort(),
    [
      'CHARGE_PAID',
      'SPLIT_PAID',
      'REFUND',
      'WITHDRAWAL',
      'WITHDRAWAL_REVERSED',
      'INFRACTION_BLOCK',
      'INFRACTION_RELEASE',
    ].sort(),
  );
  const res = await download(owner, '?format=csv&locale=pt-BR');
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'text/csv; charset=utf-8');
  t.is(res.headers.get('content-disposition'), 'attachment; filename="extrato-pt-BR.csv"');
  t.is(res.headers.get('x-total-count'), String(json.length));
  const bytes = Buffer.from(await res.arrayBuffer());
  t.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'UTF-8 byte order mark');
  t.is(
    bytes.subarray(3).toString('utf8').split('\n')[0],
    'Data;Tipo;Valor (R$);Saldo após (R$);Cobrança;Saque;Estorno;Infração;Lançamento',
  );
  const rows = read(bytes);
  t.deepEqual(Object.keys(rows[0]), HEADER);
  t.deepEqual(
    rows,
    json.map((e) => ({
      Data: spTime(e.createdAt),
      Tipo: LABELS[e.type],
      'Valor (R$)': `${e.amount < 0 ? '-' : ''}${Math.floor(Math.abs(e.amount) / 100)},${String(Math.abs(e.amount) % 100).padStart(2, '0')}`,
      'Saldo após (R$)': `${Math.floor(e.balanceAfter / 100)},${String(e.balanceAfter % 100).padStart(2, '0')}`,
      Cobrança: e.chargeId ?? e.recurringChargeId ?? '',
      Saque: e.withdrawalId ?? '',
      Estorno: e.refundId ?? '',
      Infração: e.infractionId ?? '',
      Lançamento: e.id,
    })),
  );
  // what a spreadsheet computes: oldest to newest, each Saldo após is the previous one plus Valor; the last is the
  // balance (available + blocked)
  let running = 0;
  for (const row of [...rows].reverse()) {
    running += centavos(row['Valor (R$)']);
    t.is(centavos(row['Saldo após (R$)']), running, row.Lançamento);
  }
  const balance = (await owner.http.get('/v1/merchants/me/balance')).body;
  t.is(running, balance.available + balance.blocked);
  t.true(
    rows.some((r) => r.Tipo === 'Cobrança recebida' && r['Valor (R$)'] === '1222,34'),
    'net of 1234,56 less the 0.99 % fee, no thousands separator',
  );
  t.true(rows.some((r) => r.Tipo === 'Estorno' && r['Valor (R$)'] === '-0,05'));
  t.true(rows.some((r) => r.Tipo === 'Bloqueio MED' && r['Valor (R$)'] === '0,00'));

  // the recipient's side of the split
  const recipient = read(Buffer.from(await (await download(seller, '?format=csv&locale=pt-BR')).arrayBuffer()));
  t.like(recipient[0], { Tipo: 'Split recebido', 'Valor (R$)': '70,00', 'Saldo após (R$)': '70,00' });

  // a page (page/limit) in pt-BR too, and the JSON does not change with locale
  const page = read(
    Buffer.from(await (await download(owner, '?format=csv&locale=pt-BR&limit=2&page=2')).arrayBuffer()),
  );
  t.deepEqual(
    page.map((r) => r.Lançamento),
    json.slice(2, 4).map((e) => e.id),
  );
  const viaAccept = await fetch(`${app.baseUrl}/v1/merchants/me/statement?locale=pt-BR`, {
    headers: { authorization: `Bearer ${owner.token}`, accept: 'text/csv' },
  });
  const acceptBytes = Buffer.from(await viaAccept.arrayBuffer());
  t.deepEqual(read(acceptBytes), rows, 'Accept: text/csv with locale: the same pt-BR CSV');
  t.deepEqual([...acceptBytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  t.deepEqual((await owner.http.get('/v1/merchants/me/statement?limit=100&locale=pt-BR')).body.entries, json);
});

test('without locale the CSV is byte for byte what it was', async (t) => {
  const { owner } = await busyMerchant();
  const json = await entries(owner);
  const text = await (await download(owner, '?format=csv')).text();
  const expected =
    'id,createdAt,type,amount,blockedAmount,balanceAfter,chargeId,withdrawalId,refundId,infractionId,recurringChargeId\n' +
    json
      .map(
        (e) =>
          [
            e.id,
            e.createdAt,
            e.type,
            e.amount,
            (e as unknown as { blockedAmount: number }).blockedAmount,
            e.balanceAfter,
            e.chargeId ?? '',
            e.withdrawalId ?? '',
            e.refundId ?? '',
            e.infractionId ?? '',
            e.recurringChargeId ?? '',
          ].join(',') + '\n',
      )
      .join('');
  t.is(text, expected);
});

test('a long export in pt-BR streams every line, newest first', async (t) => {
  const m = await createMerchant(app);
  const n = 2_345;
  await app.orm.em.fork().execute(
    `insert into statement_entries (id, merchant_id, n, type, amount, blocked_amount, balance_after, transaction_id, created_at)
     select gen_random_uuid(), ?, i, 'CHARGE_PAID', 100001, 0, i * 100001, gen_random_uuid(), '2026-12-31T23:00:00-03:00'::timestamptz + i * interval '2 seconds' from generate_series(1, ?) i`,
    [m.merchantId, n],
  );
  const rows = read(Buffer.from(await (await download(m, '?format=csv&locale=pt-BR')).arrayBuffer()));
  t.is(rows.length, n);
  t.deepEqual(rows[0], {
    ...rows[0],
    Data: '01/01/2027 00:18:10', // 23:00 + 2 × 2345 s: past midnight, into the new year
    'Valor (R$)': '1000,01',
    'Saldo após (R$)': '2345023,45',
  });
  t.is(rows[n - 1].Data, '31/12/2026 23:00:02');
  t.is(rows[n - 1]['Saldo após (R$)'], '1000,01');
  await app.orm.em.fork().execute(`delete from statement_entries where merchant_id = ?`, [m.merchantId]);
});

test('locale: only pt-BR, at most once (400 in the listing style)', async (t) => {
  const m = await createMerchant(app);
  for (const [q, message] of [
    ['?format=csv&locale=en-US', 'locale deve ser pt-BR'],
    ['?format=csv&locale=pt-br', 'locale deve ser pt-BR'],
    ['?format=csv&locale=', 'locale deve ser pt-BR'],
    ['?format=csv&locale=pt-BR&locale=pt-BR', 'locale deve aparecer uma única vez'],
  ]) {
    const res = await m.http.get(`/v1/merchants/me/statement${q}`);
    t.is(res.status, 400, q);
    t.deepEqual(
      res.body,
      { code: 'validation_failed', message: 'Dados inválidos', errors: [{ field: 'locale', message }] },
      q,
    );
  }
});
