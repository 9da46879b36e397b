// The merchants' side of the chaos run: a steady mix of charges, payments (some just before the charge expires),
// refunds, withdrawals, Pix Automático (mandates, recurring charges and their attempts, some racing, some partially
// refunded), idempotent replays, reads and bad input, with every answer recorded for the checks.
import { randomBytes, randomUUID } from 'node:crypto';
import { SANDBOX_KEYS } from '../../src/acquirer/sandbox.ts';
import { saoPauloDate } from '../../src/charges/due-date.ts';
import { plusDays } from '../../src/recurring/calendar.ts';

export type Answer = { at: number; status: number; op: string }; // at: when answered; status 0: no answer

export type ClientCharge = {
  id: string;
  merchant: number;
  expiresIn: number;
  paid: boolean; // the sandbox pay request was accepted (202): the payer paid
  endToEndId?: string;
  refundAccepted: boolean; // POST refund answered 202
};

// A recurring charge on an approved QR mandate (policy NONE), and what the sandbox attempts were answered
export type ClientRecurring = {
  id: string;
  merchant: number;
  amount: number;
  payments: string[]; // endToEndIds of the attempts PAID answered 202: the payer paid (a second one is returned)
  rejected: boolean; // an attempt REJECTED answered 200 (policy NONE: the charge FAILED, unless a payment won)
  refunds: number[]; // amounts of the partial refunds accepted (202)
};

export type Merchant = { index: number; apiKey: string; merchantId: string };

export type LoadState = {
  answers: Answer[];
  charges: Map<string, ClientCharge>;
  replays: { key: string; first: string; again: string | null; status: number }[];
  replayBodies: Map<string, object>;
  badInput: { at: number; status: number; what: string }[];
  pending: Set<Promise<unknown>>; // scheduled payments still to be made
  recurring: Map<string, ClientRecurring>;
};

const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)];
const between = (lo: number, hi: number) => lo + Math.random() * (hi - lo);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function createLoad(base: string, merchants: Merchant[]) {
  const state: LoadState = {
    answers: [],
    charges: new Map(),
    replays: [],
    replayBodies: new Map(),
    badInput: [],
    pending: new Set(),
    recurring: new Map(),
  };

  async function call(m: Merchant, op: string, method: string, path: string, body?: unknown, headers = {}) {
    try {
      const res = await fetch(base + path, {
        method,
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${m.apiKey}`, ...headers },
        signal: AbortSignal.timeout(30_000),
      });
      const json = (await res.json().catch(() => null)) as any;
      state.answers.push({ at: Date.now(), status: res.status, op });
      return { status: res.status, json };
    } catch {
      state.answers.push({ at: Date.now(), status: 0, op });
      return { status: 0, json: null };
    }
  }

  function later(ms: number, f: () => Promise<unknown>) {
    const p: Promise<unknown> = sleep(ms)
      .then(f)
      .finally(() => state.pending.delete(p));
    state.pending.add(p);
  }

  async function pay(c: ClientCharge) {
    const m = merchants[c.merchant];
    const r = await call(m, 'pay', 'POST', `/v1/sandbox/charges/${c.id}/pay`);
    if (r.status === 202) {
      c.paid = true;
      c.endToEndId = r.json.endToEndId;
    }
  }

  async function createCharge(m: Merchant, key?: string) {
    // one charge in five lives the minimum 60 s and is paid in its last seconds: the expiry sweep races the payment
    const short = Math.random() < 0.2;
    const expiresIn = short ? 60 : 3600;
    const body = { amount: Math.floor(between(500, 20_000)), description: 'caos', expiresIn };
    const r = await call(m, 'create', 'POST', '/v1/charges', body, key ? { 'x-idempotency-key': key } : {});
    if (r.status !== 201 && r.status !== 200) return null;
    if (key) state.replayBodies.set(key, body);
    const c: ClientCharge = { id: r.json.charge.id, merchant: m.index, expiresIn, paid: false, refundAccepted: false };
    state.charges.set(c.id, c);
    if (short) later(between(50_000, 57_000), () => pay(c));
    else if (Math.random() < 0.85) later(between(200, 3000), () => pay(c));
    return c;
  }

  // Pix Automático: a QR mandate (fixed amount, WEEKLY from tomorrow, no retries) approved by the payer, its first
  // cycle's charge due in 3 days, then its attempt: PAID (sometimes twice at once: one pays, the other is returned),
  // or REJECTED (the charge FAILED) sometimes racing a PAID, and some paid ones partially refunded.
  async function recurringCycle(m: Merchant) {
    const today = saoPauloDate(new Date());
    const amount = Math.floor(between(500, 20_000));
    const mandate = await call(m, 'mandate', 'POST', '/v1/mandates', {
      journey: 'QR',
      customer: { name: 'Pagador Caos', document: '52998224725' },
      contract: `caos-${randomBytes(4).toString('hex')}`,
      object: 'assinatura caos',
      frequency: 'WEEKLY',
      startDate: plusDays(today, 1),
      amount,
      retryPolicy: 'NONE',
    });
    if (mandate.status !== 201) return;
    const id = mandate.json.mandate.id as string;
    const approved = await call(m, 'mandate approve', 'POST', `/v1/sandbox/mandates/${id}/approve`, {});
    if (approved.status !== 200) return;
    const created = await call(m, 'recurring charge', 'POST', `/v1/mandates/${id}/charges`, {
      dueDate: plusDays(today, 3),
      amount,
    });
    if (created.status !== 201) return;
    const rc: ClientRecurring = {
      id: created.json.recurringCharge.id,
      merchant: m.index,
      amount,
      payments: [],
      rejected: false,
      refunds: [],
    };
    state.recurring.set(rc.id, rc);
    const attempt = async (outcome: 'PAID' | 'REJECTED') => {
      const r = await call(m, `attempt ${outcome}`, 'POST', `/v1/sandbox/recurring-charges/${rc.id}/attempt`, {
        outcome,
      });
      if (outcome === 'PAID' && r.status === 202) rc.payments.push(r.json.endToEndId);
      if (outcome === 'REJECTED' && r.status === 200) rc.rejected = true;
    };
    const roll = Math.random();
    later(between(200, 3000), async () => {
      if (roll < 0.55) await attempt('PAID');
      else if (roll < 0.75) await Promise.all([attempt('PAID'), attempt('PAID')]);
      else if (roll < 0.9) {
        await attempt('REJECTED');
        await attempt('PAID'); // nothing SCHEDULED any more: 404
      } else await Promise.all([attempt('REJECTED'), attempt('PAID')]);
      if (!rc.payments.length || Math.random() >= 0.35) return;
      await sleep(between(1000, 5000)); // the payment settles meanwhile (or not yet: then the refund is refused)
      const part = Math.max(1, Math.floor(rc.amount / 3));
      const r = await call(m, 'recurring refund', 'POST', `/v1/recurring-charges/${rc.id}/refunds`, { amount: part });
      if (r.status === 202) rc.refunds.push(part);
    });
  }

  const ops: [number, (m: Merchant) => Promise<unknown>][] = [
    [6, (m) => recurringCycle(m)],
    [35, (m) => createCharge(m)],
    [
      8,
      async (m) => {
        const paid = [...state.charges.values()].filter((c) => c.merchant === m.index && c.paid && !c.refundAccepted);
        if (!paid.length) return;
        const c = pick(paid);
        const r = await call(m, 'refund', 'POST', `/v1/charges/${c.id}/refund`, {});
        if (r.status === 202) c.refundAccepted = true;
      },
    ],
    [
      10,
      (m) =>
        call(m, 'withdraw', 'POST', '/v1/merchants/me/withdrawals', {
          amount: Math.floor(between(100, 3000)),
          pixKeyType: 'EMAIL',
          pixKey: Math.random() < 0.15 ? SANDBOX_KEYS.fail : 'destino@example.com',
          description: 'saque caos',
        }),
    ],
    [12, (m) => badInput(m)],
    [
      8,
      async (m) => {
        const key = `caos-${randomBytes(6).toString('hex')}`;
        const first = await createCharge(m, key);
        if (!first) return;
        await sleep(between(0, 5000)); // the merchant's retry, after a timeout on its side
        const body = state.replayBodies.get(key);
        const again = await call(m, 'replay', 'POST', '/v1/charges', body, { 'x-idempotency-key': key });
        state.replays.push({ key, first: first.id, again: again.json?.charge?.id ?? null, status: again.status });
      },
    ],
    [
      17,
      async (m) => {
        const mine = [...state.charges.values()].filter((c) => c.merchant === m.index);
        if (mine.length) await call(m, 'read', 'GET', `/v1/charges/${pick(mine).id}`);
      },
    ],
    [10, (m) => call(m, 'list', 'GET', '/v1/charges?limit=20')],
  ];
  const totalWeight = ops.reduce((s, [w]) => s + w, 0);

  const BAD: [string, string, string, unknown][] = [
    ['amount as text', 'POST', '/v1/charges', { amount: 'abc', description: 'x' }],
    ['negative amount', 'POST', '/v1/charges', { amount: -5, description: 'x' }],
    ['truncated JSON', 'POST', '/v1/charges', '{"amount": 10'],
    [
      'huge withdrawal',
      'POST',
      '/v1/merchants/me/withdrawals',
      { amount: 1e12, pixKeyType: 'EMAIL', pixKey: 'a@b.co' },
    ],
    ['unknown charge', 'GET', `/v1/charges/${randomUUID()}`, undefined],
    ['malformed id', 'GET', '/v1/charges/nao-e-um-id', undefined],
    ['refund of unknown charge', 'POST', `/v1/charges/${randomUUID()}/refund`, {}],
    ['pay unknown charge', 'POST', `/v1/sandbox/charges/${randomUUID()}/pay`, undefined],
    ['webhook with ftp url', 'POST', '/v1/webhooks/merchant', { url: 'ftp://x', events: ['charge.paid'] }],
  ];
  async function badInput(m: Merchant) {
    const [what, method, path, body] = pick(BAD);
    const r = await call(m, 'bad', method, path, body);
    state.badInput.push({ at: state.answers.at(-1)!.at, status: r.status, what });
  }

  return {
    state,
    // RATE operations a second, for `seconds`, on random merchants
    async run(rate: number, seconds: number) {
      const started = performance.now();
      const inflight = new Set<Promise<unknown>>();
      for (let i = 0; performance.now() - started < seconds * 1000; i++) {
        const due = started + (i * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        let r = Math.random() * totalWeight;
        const op = ops.find(([w]) => (r -= w) < 0)![1];
        const p = op(pick(merchants)).finally(() => inflight.delete(p));
        inflight.add(p);
      }
      await Promise.all(inflight);
    },
  };
}
