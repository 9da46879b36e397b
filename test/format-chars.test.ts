import test from 'ava';
import fc from 'fast-check';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { client } from './support/client.ts';
import { cpf, createOnboardedMerchant } from './support/factories.ts';
import { waitUntil } from './support/receiver.ts';
import { fund } from './withdrawals.helpers.ts';
import { stripFormatChars } from '../src/pix/text.ts';

// Unicode format characters (category Cf: zero-width, bidi, soft hyphen, tags...) never reach a payer, a statement or
// a webhook: every text a merchant writes that goes there is stored without them (src/pix/text.ts keeps only the
// joiners of emoji sequences), and the rest of the text is kept.

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

const DIRTY = 'Pe\u200Bdi\u200Cdo\u00AD 1\u2060 \u202Eabc\u202C \uFEFFfim\u{E0041} 👨‍👩‍👧 ✓';
const CLEAN = 'Pedido 1 abc fim 👨‍👩‍👧 ✓';
// a Cf outside the joiners of an emoji ZWJ sequence or the tags of an emoji flag (the only ones kept)
const KEPT =
  /\p{Extended_Pictographic}(?:\u{FE0E}|\u{FE0F}|\p{Emoji_Modifier})*\u200D(?=\p{Extended_Pictographic})|\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,8}\u{E007F}/gu;
const strayCf = (s: string) => /\p{Cf}/u.test(s.replace(KEPT, ''));

test('every text that reaches a payer, a statement or a webhook is stored without format characters', async (t) => {
  t.is(stripFormatChars(DIRTY), CLEAN);
  const email = `cf-${Date.now()}@example.com`;
  const reg = await client(app.baseUrl).post('/v1/auth/register', {
    email,
    password: 'correct horse battery',
    name: `Loja ${DIRTY}`,
    document: cpf(),
  });
  t.is(reg.status, 201);
  t.is((await client(app.baseUrl, reg.body.token).get('/v1/merchants/me')).body.merchant.name, `Loja ${CLEAN}`);

  const m = await createOnboardedMerchant(app);
  const created = await m.http.post('/v1/charges', {
    amount: 10_000,
    description: DIRTY,
    customer: { name: `Maria ${DIRTY}`, document: cpf() },
  });
  t.is(created.status, 201);
  t.is(created.body.charge.description, CLEAN);
  t.is(created.body.charge.customer.name, `Maria ${CLEAN}`);
  const id = created.body.charge.id as string;
  // the payer's page, the payload location and the webhook payloads read the stored text
  const page = await (await fetch(`${app.baseUrl}/pay/${id}`)).text();
  t.true(page.includes('Pedido 1 abc fim'));
  t.false(strayCf(page));

  await m.http.post(`/v1/sandbox/charges/${id}/pay`);
  await waitUntil(async () => (await m.http.get(`/v1/charges/${id}`)).body.charge.status === 'PAID', 15_000, 'PAID');
  const refund = await m.http.post(`/v1/charges/${id}/refunds`, { amount: 100, reason: DIRTY });
  t.is(refund.status, 202, JSON.stringify(refund.body));
  t.is(refund.body.refund.reason, CLEAN);
  // MED opens on a charge with no refund in progress: the worker completes this one first
  await waitUntil(
    async () => (await m.http.get(`/v1/charges/${id}/refunds`)).body.refunds[0].status === 'COMPLETED',
    30_000,
    'the refund to complete',
  );

  const opened = await m.http.post(`/v1/sandbox/charges/${id}/infraction`, { reason: DIRTY });
  t.is(opened.status, 201, JSON.stringify(opened.body));
  t.is(opened.body.infraction.reason, CLEAN);
  const defended = await m.http.post(`/v1/infractions/${opened.body.infraction.id}/defense`, { text: DIRTY });
  t.is(defended.status, 200, JSON.stringify(defended.body));
  t.is(defended.body.infraction.defense, CLEAN);

  await fund(app, m.merchantId, 1000);
  const withdrawal = await m.http.post('/v1/merchants/me/withdrawals', {
    amount: 100,
    pixKey: 'destino@example.com',
    pixKeyType: 'EMAIL',
    description: DIRTY,
  });
  t.is(withdrawal.status, 201, JSON.stringify(withdrawal.body));
  t.is(withdrawal.body.withdrawal.description, CLEAN);

  // nothing the merchant's events carry has one either
  const events = await m.http.get('/v1/events?limit=100');
  t.true(events.body.events.length > 0);
  t.false(strayCf(JSON.stringify(events.body.events)));
});

test('a text stored before (with a zero-width space) still reaches the payer without it', async (t) => {
  const m = await createOnboardedMerchant(app);
  const c = (await m.http.post('/v1/charges', { amount: 500, description: 'Pedido 7' })).body.charge;
  await app.orm.em.fork().execute(`update charges set description = ? where id = ?`, ['Pe\u200Bdido\u00AD 7', c.id]);
  const page = await (await fetch(`${app.baseUrl}/pay/${c.id}`)).text();
  t.true(page.includes('Pedido 7'));
  t.false(/\p{Cf}/u.test(page));
  const location = await m.http.get(`/pix/qr/${c.txid}`);
  t.is(location.body.solicitacaoPagador, 'Pedido 7');
});

test('property: a charge stores its description and customer name without Cf, and keeps the rest of them', async (t) => {
  const m = await createOnboardedMerchant(app);
  const unit = fc.constantFrom(
    'a',
    'Z',
    ' ',
    'ç',
    'é',
    'e\u0301',
    '😀',
    '👍🏽',
    '🇧🇷',
    '👨‍👩‍👧',
    'ש',
    'ع',
    '\u200B',
    '\u200C',
    '\u200D',
    '\u00AD',
    '\uFEFF',
    '\u2060',
    '\u202E',
    '\u2066',
    '\u061C',
    '\u0600',
    '\u{E0041}',
    '\u{E007F}',
  );
  const text = fc
    .string({ unit, minLength: 1, maxLength: 40 })
    .filter((s) => stripFormatChars(s).trim().length > 0 && [...stripFormatChars(s).trim()].length <= 100);
  await fc.assert(
    fc.asyncProperty(text, text, async (description, name) => {
      const res = await m.http.post('/v1/charges', {
        amount: 100,
        description,
        customer: { name, document: cpf() },
      });
      t.is(res.status, 201, JSON.stringify(res.body));
      const stored = (await m.http.get(`/v1/charges/${res.body.charge.id}`)).body.charge;
      const expected = [stripFormatChars(description).trim(), stripFormatChars(name).trim()];
      const got = [stored.description, stored.customer.name];
      if (got[0] !== expected[0] || got[1] !== expected[1] || got.some(strayCf))
        throw new Error(`${JSON.stringify([description, name])} -> ${JSON.stringify(got)}`);
    }),
    { numRuns: 30 },
  );
  t.pass();
});
