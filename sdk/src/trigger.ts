import { randomUUID } from 'node:crypto';
import type { PixClient } from './client.ts';
import type { EventName } from './events.ts';

// A reason `trigger` cannot make the event (the API refused a step, or the sandbox cannot produce it).
export class TriggerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TriggerError';
  }
}

type Ctx = { client: PixClient; log: (line: string) => void; timeoutMs: number };
type Result<T> = { data?: T; error?: unknown; response: Response };

function must<T>({ data, error, response }: Result<T>, step: string): T {
  if (error !== undefined || data === undefined) {
    const message = (error as { message?: string } | undefined)?.message ?? response.statusText;
    const hint = response.status === 404 && step.includes('sandbox') ? ' (is this a sandbox deployment?)' : '';
    throw new TriggerError(`${step}: HTTP ${response.status} ${message}${hint}`);
  }
  return data;
}

// Waits until the API lists `event` about `resourceId`: the change and its event committed together, so the event
// is then in GET /v1/events, the stream and the webhooks' queue. Returns its id.
async function eventOf({ client, timeoutMs }: Ctx, event: EventName, resourceId: string): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = must(
      await client.GET('/v1/events', { params: { query: { type: event, resourceId, limit: 1 } } }),
      `looking for ${event}`,
    );
    if (list.events[0]) return list.events[0].id;
    if (Date.now() > deadline) throw new TriggerError(`no ${event} for ${resourceId} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const DESCRIPTION = 'pix-payments trigger';

// A charge created and paid by the sandbox's payer (PAID arrives asynchronously, with charge.paid).
async function paidCharge(ctx: Ctx, amount = 1000) {
  const { charge } = must(
    await ctx.client.POST('/v1/charges', { body: { amount, description: DESCRIPTION } }),
    'creating a charge',
  );
  must(
    await ctx.client.POST('/v1/sandbox/charges/{id}/pay', { params: { path: { id: charge.id } } }),
    'paying it in the sandbox',
  );
  const eventId = await eventOf(ctx, 'charge.paid', charge.id);
  ctx.log(`charge ${charge.id} created and paid (charge.paid ${eventId})`);
  return charge;
}

// A withdrawal to a sandbox key whose outcome is scripted: fail@sandbox.test fails, return@sandbox.test completes
// then is returned, any other key completes. Funds the balance with a paid charge first when it is short.
async function withdrawal(ctx: Ctx, pixKey: string) {
  const amount = 100;
  const balance = must(await ctx.client.GET('/v1/merchants/me/balance'), 'reading the balance');
  if (balance.available < amount) await paidCharge(ctx);
  const { withdrawal } = must(
    await ctx.client.POST('/v1/merchants/me/withdrawals', {
      body: { amount, pixKey, pixKeyType: 'EMAIL', description: DESCRIPTION },
    }),
    'creating a withdrawal',
  );
  ctx.log(`withdrawal ${withdrawal.id} of ${amount} centavos to ${pixKey} created`);
  return withdrawal;
}

async function infraction(ctx: Ctx) {
  const charge = await paidCharge(ctx);
  const { infraction } = must(
    await ctx.client.POST('/v1/sandbox/charges/{id}/infraction', {
      params: { path: { id: charge.id } },
      body: { reason: DESCRIPTION },
    }),
    'opening an infraction in the sandbox',
  );
  ctx.log(`infraction ${infraction.id} opened on charge ${charge.id}`);
  return infraction;
}

// Pix Automático (the merchant must have a CNPJ). Dates are São Paulo calendar days, `days` from today (São Paulo
// has kept one offset all year since 2019).
const saoPauloDay = (days: number): string =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(Date.now() + days * 86_400_000);
const PAYER = { name: 'Pagador pix-payments trigger', document: '52998224725' };

// A weekly QR mandate of R$ 10,00 from the day after tomorrow, approved by the sandbox's payer.
async function approvedMandate(ctx: Ctx, retryPolicy: 'NONE' | 'THREE_IN_SEVEN_DAYS' = 'NONE') {
  const mandate = await newMandate(ctx, retryPolicy);
  must(
    await ctx.client.POST('/v1/sandbox/mandates/{id}/approve', { params: { path: { id: mandate.id } } }),
    'approving it in the sandbox',
  );
  const eventId = await eventOf(ctx, 'mandate.approved', mandate.id);
  ctx.log(`mandate ${mandate.id} created and approved by the payer (mandate.approved ${eventId})`);
  return mandate;
}

async function newMandate(ctx: Ctx, retryPolicy: 'NONE' | 'THREE_IN_SEVEN_DAYS' = 'NONE') {
  const { mandate } = must(
    await ctx.client.POST('/v1/mandates', {
      body: {
        journey: 'QR',
        customer: PAYER,
        contract: randomUUID().slice(0, 35),
        object: DESCRIPTION,
        frequency: 'WEEKLY',
        startDate: saoPauloDay(2),
        amount: 1000,
        retryPolicy,
      },
    }),
    'creating a mandate (Pix Automático needs a merchant with a CNPJ)',
  );
  return mandate;
}

// The mandate's first charge, due the day after tomorrow (the earliest the rules allow); ACTIVE in the sandbox.
async function recurringCharge(ctx: Ctx, retryPolicy: 'NONE' | 'THREE_IN_SEVEN_DAYS' = 'NONE') {
  const mandate = await approvedMandate(ctx, retryPolicy);
  const { recurringCharge } = must(
    await ctx.client.POST('/v1/mandates/{id}/charges', {
      params: { path: { id: mandate.id } },
      body: { dueDate: saoPauloDay(2), amount: 1000, description: DESCRIPTION },
    }),
    'creating a recurring charge',
  );
  ctx.log(`recurring charge ${recurringCharge.id} due ${recurringCharge.dueDate} created`);
  return recurringCharge;
}

// The sandbox's payer's bank settles the charge's scheduled attempt now.
async function attempt(ctx: Ctx, id: string, outcome: 'PAID' | 'REJECTED', failureCode?: string) {
  must(
    await ctx.client.POST('/v1/sandbox/recurring-charges/{id}/attempt', {
      params: { path: { id } },
      body: { outcome, ...(failureCode && { failureCode }) },
    }),
    'settling its attempt in the sandbox',
  );
  ctx.log(`its attempt ${outcome}${failureCode ? ` (${failureCode})` : ''}`);
}

async function paidRecurringCharge(ctx: Ctx) {
  const charge = await recurringCharge(ctx);
  await attempt(ctx, charge.id, 'PAID');
  await eventOf(ctx, 'recurring_charge.paid', charge.id);
  return charge;
}

// The events only the daily job makes (a day's expiries): no API call makes a day pass.
const dailyJobOnly = (event: string, what: string, day: string) => async () => {
  throw new TriggerError(
    `${event} comes from the daily job (${what}), which no API call runs: on a sandbox service, ` +
      `\`npm run ops -- recurring:run --date ${day}\` runs that day's job now`,
  );
};

type Recipe = { does: string; run: (ctx: Ctx) => Promise<{ resourceId: string }> };

// How the sandbox produces each event.
export const RECIPES: Record<EventName, Recipe> = {
  'charge.paid': {
    does: 'creates a charge of R$ 10,00 and pays it in the sandbox',
    run: async (ctx) => ({ resourceId: (await paidCharge(ctx)).id }),
  },
  'charge.refunded': {
    does: 'creates and pays a charge, then refunds all of it',
    run: async (ctx) => {
      const charge = await paidCharge(ctx);
      must(
        await ctx.client.POST('/v1/charges/{id}/refunds', { params: { path: { id: charge.id } }, body: {} }),
        'refunding the charge',
      );
      return { resourceId: charge.id };
    },
  },
  'withdraw.completed': {
    does: 'withdraws R$ 1,00 to a sandbox key that completes (paying a charge first if the balance is short)',
    run: async (ctx) => ({ resourceId: (await withdrawal(ctx, 'destino@example.com')).id }),
  },
  'withdraw.failed': {
    does: 'withdraws R$ 1,00 to fail@sandbox.test, which the sandbox refuses',
    run: async (ctx) => ({ resourceId: (await withdrawal(ctx, 'fail@sandbox.test')).id }),
  },
  'withdraw.refunded': {
    does: 'withdraws R$ 1,00 to return@sandbox.test, which completes and then comes back',
    run: async (ctx) => ({ resourceId: (await withdrawal(ctx, 'return@sandbox.test')).id }),
  },
  'pixkey.updated': {
    does: 'adds a random PIX key (CHAVE_ALEATORIA) and deletes it: two events, ACTIVE then INACTIVE',
    run: async (ctx) => {
      const { pixKey } = must(
        await ctx.client.POST('/v1/merchants/me/pix-keys', { body: { type: 'CHAVE_ALEATORIA', key: randomUUID() } }),
        'adding a PIX key',
      );
      const { response } = await ctx.client.DELETE('/v1/merchants/me/pix-keys/{id}', {
        params: { path: { id: pixKey.id } },
      });
      if (!response.ok) throw new TriggerError(`deleting PIX key ${pixKey.id}: HTTP ${response.status}`);
      ctx.log(`PIX key ${pixKey.id} added and deleted`);
      return { resourceId: pixKey.id };
    },
  },
  'infraction.received': {
    does: "pays a charge, then the payer's bank opens a MED infraction on it (sandbox)",
    run: async (ctx) => ({ resourceId: (await infraction(ctx)).id }),
  },
  'infraction.updated': {
    does: 'opens an infraction as above, then sends your defence (UNDER_REVIEW)',
    run: async (ctx) => {
      const { id } = await infraction(ctx);
      must(
        await ctx.client.POST('/v1/infractions/{id}/defense', {
          params: { path: { id } },
          body: { text: 'Defesa enviada por pix-payments trigger' },
        }),
        'sending the defence',
      );
      return { resourceId: id };
    },
  },
  'infraction.refund_completed': {
    does: "not by itself: an infraction is ACCEPTED by the platform's operator, never through the API",
    run: async () => {
      throw new TriggerError(
        'infraction.refund_completed follows an ACCEPTED infraction, which only the operator decides: run ' +
          '`pix-payments trigger infraction.received`, then on the service `npm run ops -- infraction:accept --id <id>`',
      );
    },
  },
  'mandate.approved': {
    does: "creates a weekly QR mandate of R$ 10,00 (Pix Automático) and the sandbox's payer approves it",
    run: async (ctx) => ({ resourceId: (await approvedMandate(ctx)).id }),
  },
  'mandate.rejected': {
    does: "creates a weekly QR mandate and the sandbox's payer refuses it",
    run: async (ctx) => {
      const mandate = await newMandate(ctx);
      must(
        await ctx.client.POST('/v1/sandbox/mandates/{id}/reject', { params: { path: { id: mandate.id } } }),
        'rejecting it in the sandbox',
      );
      ctx.log(`mandate ${mandate.id} created and rejected by the payer`);
      return { resourceId: mandate.id };
    },
  },
  'mandate.canceled': {
    does: 'creates and approves a mandate, then cancels it (as the merchant)',
    run: async (ctx) => {
      const mandate = await approvedMandate(ctx);
      must(
        await ctx.client.PATCH('/v1/mandates/{id}', {
          params: { path: { id: mandate.id } },
          body: { status: 'CANCELED', reason: DESCRIPTION },
        }),
        'cancelling the mandate',
      );
      return { resourceId: mandate.id };
    },
  },
  'mandate.expired': {
    does: 'not by itself: a mandate expires in the daily job (not approved by expiresAt, or past its endDate)',
    run: dailyJobOnly(
      'mandate.expired',
      'a mandate not approved by its expiresAt, or past its endDate',
      "<the day after the mandate's expiresAt or endDate>",
    ),
  },
  'recurring_charge.paid': {
    does: "creates and approves a mandate, creates its first recurring charge, and the payer's bank pays it",
    run: async (ctx) => ({ resourceId: (await paidRecurringCharge(ctx)).id }),
  },
  'recurring_charge.attempt_failed': {
    does: "as above with retries allowed; the payer's bank refuses the debit (AM04): the charge can be retried",
    run: async (ctx) => {
      const charge = await recurringCharge(ctx, 'THREE_IN_SEVEN_DAYS');
      await attempt(ctx, charge.id, 'REJECTED', 'AM04');
      return { resourceId: charge.id };
    },
  },
  'recurring_charge.failed': {
    does: "as above without retries; the payer's bank refuses the debit (AM04): the charge fails",
    run: async (ctx) => {
      const charge = await recurringCharge(ctx, 'NONE');
      await attempt(ctx, charge.id, 'REJECTED', 'AM04');
      return { resourceId: charge.id };
    },
  },
  'recurring_charge.canceled': {
    does: 'creates a recurring charge as above, then cancels it before its due date',
    run: async (ctx) => {
      const charge = await recurringCharge(ctx);
      must(
        await ctx.client.PATCH('/v1/recurring-charges/{id}', {
          params: { path: { id: charge.id } },
          body: { status: 'CANCELED' },
        }),
        'cancelling the recurring charge',
      );
      return { resourceId: charge.id };
    },
  },
  'recurring_charge.expired': {
    does: 'not by itself: a recurring charge unpaid by dueDate + 7 expires in the daily job of dueDate + 8',
    run: dailyJobOnly(
      'recurring_charge.expired',
      'a recurring charge with retries allowed, unpaid by dueDate + 7',
      '<its dueDate + 8>',
    ),
  },
  'recurring_charge.refunded': {
    does: 'pays a recurring charge as above, then refunds all of it',
    run: async (ctx) => {
      const charge = await paidRecurringCharge(ctx);
      must(
        await ctx.client.POST('/v1/recurring-charges/{id}/refunds', { params: { path: { id: charge.id } }, body: {} }),
        'refunding the recurring charge',
      );
      return { resourceId: charge.id };
    },
  },
};

// Makes the sandbox produce `event`; resolves with its id once the API has recorded it.
export async function trigger(
  client: PixClient,
  event: EventName,
  { log = () => {}, timeoutMs = 60_000 }: { log?: (line: string) => void; timeoutMs?: number } = {},
): Promise<{ eventId: string; resourceId: string }> {
  const ctx = { client, log, timeoutMs };
  const { resourceId } = await RECIPES[event].run(ctx);
  const eventId = await eventOf(ctx, event, resourceId);
  return { eventId, resourceId };
}
