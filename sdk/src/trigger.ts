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

type Recipe = { does: string; run: (ctx: Ctx) => Promise<{ resourceId: string }> };

// How the sandbox produces each of the nine events.
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
