import test from 'ava';
import { commands, main } from '../src/ops.ts';
import { dateRangeMessage, FIRST_YEAR, LAST_YEAR } from '../src/platform/dates.ts';
import { saoPauloDate } from '../src/charges/due-date.ts';
import { startTestApp, type TestApp } from './support/app.ts';
import { createOnboardedMerchant } from './support/factories.ts';
import { snapshot } from './support/snapshot.ts';

// Every date and time the API takes (statement from/to, JSON and CSV; a webhook's recover since/until; a charge's
// dueDate and discount dates; the sandbox's payment day; the payload location's day) and the operator commands' date
// flags are bounded to the years 2000..2100 (src/platform/dates.ts): an extreme value is a 400 naming the field, in
// Portuguese, and changes nothing; never a 500.

let app: TestApp;
let m: Awaited<ReturnType<typeof createOnboardedMerchant>>;
let webhookId: string;
let charge: { id: string; txid: string };

test.before(async () => {
  app = await startTestApp();
  m = await createOnboardedMerchant(app);
  webhookId = (await m.http.post('/v1/webhooks/merchant', { url: 'http://127.0.0.1:9/hook' })).body.webhook.id;
  charge = (await m.http.post('/v1/charges', { amount: 500, description: 'pedido' })).body.charge;
});
test.after.always(async () => {
  await app?.close();
});

// Real calendar dates written YYYY-MM-DD, outside the years: the range message.
const OUT_OF_RANGE = ['0001-01-01', '1999-12-31', '2101-01-01', '9999-12-31'];
// What is no date this API reads (five- and six-digit years, negative years, JavaScript's extended years): the format
// message.
const NOT_DATES = ['10000-01-01', '+275760-09-13', '-000001-01-01', '-271821-04-20', '2026-W01', '2026'];
const DATE_TIMES_OUT_OF_RANGE = ['0001-01-01T00:00:00Z', '1999-12-31T23:59:59.999-03:00', '9999-12-31T23:59:59-03:00'];
const NOT_DATE_TIMES = [
  '10000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '2026-11-25T10:00:00+16:00', // PostgreSQL: "time zone displacement out of range"
  '2026-11-25T24:30:00Z',
  '2026-11-25T10:00:00', // no offset
  '2026-W01',
  '2026',
];

type Reply = { status: number; body: any };
function refused(t: any, res: Reply, field: string, value: string, expectRange: boolean, where: string) {
  t.is(res.status, 400, `${where}: ${value} answered ${res.status} ${JSON.stringify(res.body)}`);
  const error = (res.body.errors ?? []).find((e: { field: string }) => e.field === field);
  t.truthy(error, `${where}: ${value} names ${field}: ${JSON.stringify(res.body)}`);
  if (!error) return;
  if (expectRange) t.is(error.message, dateRangeMessage(field.replace(/^.*\./, '')), `${where}: ${value}`);
  else t.regex(error.message, new RegExp(`^${field.replace(/^.*\./, '')} deve ser uma data`), `${where}: ${value}`);
}

test.serial('the statement refuses dates and times outside 2000..2100, as JSON and as CSV (was a 500)', async (t) => {
  const before = await snapshot(app);
  for (const bound of ['from', 'to'])
    for (const format of ['json', 'csv'])
      for (const [values, range] of [
        [OUT_OF_RANGE, true],
        [DATE_TIMES_OUT_OF_RANGE, true],
        [NOT_DATES, false],
        [NOT_DATE_TIMES, false],
      ] as const)
        for (const value of values) {
          const res = await m.http.get(
            `/v1/merchants/me/statement?format=${format}&${bound}=${encodeURIComponent(value)}`,
          );
          refused(t, res, bound, value, range, `statement ${bound} ${format}`);
        }
  t.is(await snapshot(app), before);
  // the edges themselves are days like any other
  for (const format of ['json', 'csv']) {
    const res = await m.http.get(
      `/v1/merchants/me/statement?format=${format}&from=${FIRST_YEAR}-01-01&to=${LAST_YEAR}-12-31`,
    );
    t.is(res.status, 200, `${format}: ${JSON.stringify(res.body)}`);
  }
  const edge = await m.http.get(
    `/v1/merchants/me/statement?from=2000-01-01T00:00:00Z&to=2100-12-31T23:59:59.999-03:00`,
  );
  t.is(edge.status, 200, JSON.stringify(edge.body));
});

test.serial('a webhook recover refuses since and until outside 2000..2100 or without an offset', async (t) => {
  const before = await snapshot(app);
  const path = `/v1/webhooks/merchant/${webhookId}/recover`;
  for (const [values, range] of [
    [DATE_TIMES_OUT_OF_RANGE, true],
    [NOT_DATE_TIMES, false],
    [[...OUT_OF_RANGE, ...NOT_DATES], false], // a date alone is no instant here
  ] as const)
    for (const value of values) {
      refused(t, await m.http.post(path, { since: value }), 'since', value, range, 'recover since');
      const until = await m.http.post(path, { since: '2026-01-01T00:00:00Z', until: value });
      refused(t, until, 'until', value, range, 'recover until');
    }
  t.is(await snapshot(app), before);
  const ok = await m.http.post(path, { since: '2000-01-01T00:00:00Z', until: '2100-12-31T23:59:59-03:00' });
  t.is(ok.status, 202, JSON.stringify(ok.body));
});

test.serial('a charge refuses a due date or a discount date outside 2000..2100', async (t) => {
  const before = await snapshot(app);
  const customer = { name: 'Maria', document: '52998224725' };
  for (const [values, range] of [
    [OUT_OF_RANGE, true],
    [NOT_DATES, false],
  ] as const)
    for (const value of values) {
      const due = await m.http.post('/v1/charges', { amount: 1000, description: 'x', customer, dueDate: value });
      refused(t, due, 'dueDate', value, range, 'dueDate');
      const discount = await m.http.post('/v1/charges', {
        amount: 1000,
        description: 'x',
        customer,
        dueDate: '2099-12-31',
        discount: { mode: 'FIXED_UNTIL', dates: [{ until: value, amount: 10 }] },
      });
      refused(t, discount, 'discount.dates[0].until', value, range, 'discount until');
    }
  t.is(await snapshot(app), before);
});

test.serial('the sandbox payment day and the payload location day refuse dates outside 2000..2100', async (t) => {
  const before = await snapshot(app);
  for (const [values, range] of [
    [OUT_OF_RANGE, true],
    [NOT_DATES, false],
  ] as const)
    for (const value of values) {
      const pay = await m.http.post(`/v1/sandbox/charges/${charge.id}/pay`, { date: value });
      refused(t, pay, 'date', value, range, 'sandbox pay');
      const location = await m.http.get(`/pix/qr/${charge.txid}?date=${encodeURIComponent(value)}`);
      refused(t, location, 'date', value, range, 'payload location');
    }
  t.is(await snapshot(app), before);
  t.is((await m.http.get(`/pix/qr/${charge.txid}?date=2100-12-31`)).status, 200);
  // a due-date charge asked about the last day of the range, decades late: an answer, never a 500
  const due = await m.http.post('/v1/charges', {
    amount: 100_000,
    description: 'x',
    customer: { name: 'Maria', document: '52998224725' },
    dueDate: saoPauloDate(new Date()),
    validityAfterDueDays: 1,
    fine: { mode: 'PERCENT', bps: 200 },
    interest: { mode: 'DAILY_PERCENT', bps: 100 },
  });
  t.is(due.status, 201, JSON.stringify(due.body));
  const late = await m.http.get(`/pix/qr/${due.body.charge.txid}?date=${LAST_YEAR}-12-31`);
  t.is(late.status, 200, JSON.stringify(late.body));
  const paid = await m.http.post(`/v1/sandbox/charges/${due.body.charge.id}/pay`, { date: `${LAST_YEAR}-12-31` });
  t.is(paid.status, 202, JSON.stringify(paid.body));
});

test.serial('the operator commands refuse date flags outside 2000..2100 (usage error, exit 2)', async (t) => {
  const ops = async (...argv: string[]) => {
    const err: string[] = [];
    const code = await main(argv, {
      out: () => {},
      err: (s) => err.push(s),
      env: { DATABASE_URL: app.databaseUrl, NODE_ENV: 'test' },
    });
    return { code, err: err.join('\n') };
  };
  const dated = commands.filter((c) => Object.keys(c.flags).some((f) => ['since', 'until'].includes(f)));
  t.deepEqual(dated.map((c) => c.name).sort(), ['deliveries:replay', 'refunds:failed']);
  const before = await snapshot(app);
  for (const c of dated)
    for (const flag of Object.keys(c.flags).filter((f) => ['since', 'until'].includes(f)))
      for (const value of [...OUT_OF_RANGE, ...DATE_TIMES_OUT_OF_RANGE, ...NOT_DATES, ...NOT_DATE_TIMES]) {
        const res = await ops(c.name, `--${flag}=${value}`, ...('dry-run' in c.flags ? ['--dry-run'] : []));
        t.is(res.code, 2, `${c.name} --${flag} ${value}: ${res.err}`);
        t.regex(res.err, new RegExp(`--${flag} must be`), `${c.name} --${flag} ${value}`);
      }
  t.is(await snapshot(app), before);
});
