// Customers are reused per merchant by document (contract), but each charge keeps the payer it was created with: a
// later charge with the same document and another name renames nobody on earlier charges, in the API or in webhooks.
import test from 'ava';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { cpf, createOnboardedMerchant } from './support/factories.ts';
import { waitUntil } from './support/receiver.ts';
import { Migration20261126110000_payer_snapshot as PayerSnapshot } from '../db/migrations/Migration20261126110000_payer_snapshot.ts';

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

const sql = (q: string, params: unknown[] = []) => app.orm.em.fork().execute(q, params);

async function twoChargesOneDocument() {
  const m = await createOnboardedMerchant(app);
  const document = cpf();
  const key = { 'x-idempotency-key': `first-${document}` };
  const first = await m.http.post(
    '/v1/charges',
    { amount: 1500, description: 'primeira', customer: { name: 'Maria Silva', document, email: 'maria@example.com' } },
    key,
  );
  const second = await m.http.post('/v1/charges', {
    amount: 2500,
    description: 'segunda',
    customer: { name: 'Maria S. Souza', document, phone: '+5511987654321' },
  });
  if (first.status !== 201 || second.status !== 201) throw new Error('charges not created');
  return { m, document, key, first: first.body.charge, second: second.body.charge };
}

test('a later charge with the same document renames nobody: GET, listing and idempotent replay', async (t) => {
  const { m, document, key, first, second } = await twoChargesOneDocument();
  t.is(first.customer.id, second.customer.id, 'one customer per document (contract)');
  t.deepEqual(first.customer, { id: first.customer.id, name: 'Maria Silva', document });
  t.is(second.customer.name, 'Maria S. Souza');

  t.is((await m.http.get(`/v1/charges/${first.id}`)).body.charge.customer.name, 'Maria Silva');
  t.is((await m.http.get(`/v1/charges/${second.id}`)).body.charge.customer.name, 'Maria S. Souza');
  const listed = (await m.http.get('/v1/charges')).body.charges as { id: string; customer: { name: string } }[];
  t.deepEqual(
    listed.map((c) => [c.id, c.customer.name]),
    [
      [second.id, 'Maria S. Souza'],
      [first.id, 'Maria Silva'],
    ],
  );
  const replay = await m.http.post(
    '/v1/charges',
    { amount: 1500, description: 'primeira', customer: { name: 'Maria Silva', document, email: 'maria@example.com' } },
    key,
  );
  t.is(replay.status, 200);
  t.deepEqual(replay.body.charge, first, 'a replay is the creation body, payer included');

  // each charge keeps the email and phone it was given; the customer keeps the latest of each
  const rows = await sql('select id, payer_name, payer_email, payer_phone from charges where id in (?, ?)', [
    first.id,
    second.id,
  ]);
  t.deepEqual(
    rows.find((r) => r.id === first.id),
    {
      id: first.id,
      payer_name: 'Maria Silva',
      payer_email: 'maria@example.com',
      payer_phone: null,
    },
  );
  t.deepEqual(
    rows.find((r) => r.id === second.id),
    {
      id: second.id,
      payer_name: 'Maria S. Souza',
      payer_email: null,
      payer_phone: '+5511987654321',
    },
  );
  const [customer] = await sql('select name, email, phone from customers where id = ?', [first.customer.id]);
  t.deepEqual(customer, { name: 'Maria S. Souza', email: 'maria@example.com', phone: '+5511987654321' });
});

test('the webhooks of an earlier charge carry the payer it was created with (charge.paid, charge.refunded)', async (t) => {
  const { m, first } = await twoChargesOneDocument();
  t.is((await m.http.post(`/v1/sandbox/charges/${first.id}/pay`)).status, 202);
  const eventData = (type: string) =>
    waitUntil(async () => {
      const [e] = await sql(`select data from events where merchant_id = ? and type = ?`, [m.merchantId, type]);
      return e?.data ?? null;
    }, 15_000);
  const paid = await eventData('charge.paid');
  t.is(paid.id, first.id);
  t.is(paid.customer.name, 'Maria Silva');
  t.is((await m.http.post(`/v1/charges/${first.id}/refund`)).status, 202);
  const refunded = await eventData('charge.refunded');
  t.is(refunded.customer.name, 'Maria Silva');
  t.is((await m.http.get(`/v1/charges/${first.id}`)).body.charge.customer.name, 'Maria Silva');
});

// Runs first (serial), before the other tests use the columns it drops and brings back.
test.serial('the migration goes down and up again, backfilling existing charges from their customer', async (t) => {
  const { m, first, second } = await twoChargesOneDocument();
  const em = app.orm.em.fork();
  const migration = new PayerSnapshot(em.getDriver(), app.orm.config);
  const run = async (step: () => void | Promise<void>) => {
    migration.reset();
    await step();
    for (const q of migration.getQueries()) await em.execute(q as string);
  };
  await run(() => migration.down());
  const columns = `select column_name from information_schema.columns where table_name = 'charges' and column_name like 'payer%'`;
  t.deepEqual(await em.execute(columns), []);
  await run(() => migration.up());
  t.is((await em.execute(columns)).length, 3);
  // what was lost before the migration stays lost: both get the customer's current (latest) values
  for (const id of [first.id, second.id])
    t.like((await m.http.get(`/v1/charges/${id}`)).body.charge.customer, { name: 'Maria S. Souza' });
  const [row] = await em.execute('select payer_name, payer_email, payer_phone from charges where id = ?', [first.id]);
  t.deepEqual(row, { payer_name: 'Maria S. Souza', payer_email: 'maria@example.com', payer_phone: '+5511987654321' });
  t.is(
    (await em.execute('select count(*)::int as n from charges where customer_id is null and payer_name is not null'))[0]
      .n,
    0,
  );
});
