// What must hold after the chaos, read from the database and from what the clients and the receiver saw.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { query } from './cluster.ts';
import { root } from '../../bench/lib/stack.ts';
import type { LoadState, Merchant } from './load.ts';
import type { Recorder } from './receivers.ts';

export type Check = { check: string; value: string | number; ok: boolean };
export type Window = { from: number; to: number }; // when 5xx are allowed (PostgreSQL down, plus a grace)

const inWindow = (at: number, windows: Window[]) => windows.some((w) => at >= w.from && at <= w.to);

// Polls until the system has nothing left in flight, or the deadline passes.
export async function settled(url: string, state: LoadState, recorder: Recorder, merchantIds: string[], since: Date) {
  const [row] = await query<{
    charges: number;
    recurring: number;
    refunds: number;
    withdrawals: number;
    events: string[];
  }>(
    url,
    `select
       (select count(*)::int from charges where id = any($1::uuid[]) and status = 'PENDING') as charges,
       (select count(*)::int from recurring_charges where id = any($4::uuid[]) and status in ('CREATED', 'ACTIVE'))
         as recurring,
       (select count(*)::int from refunds where status = 'PROCESSING') as refunds,
       (select count(*)::int from withdrawals where status = 'PROCESSING') as withdrawals,
       (select coalesce(array_agg(id::text), '{}') from events where merchant_id = any($2::uuid[])
         and created_at >= $3) as events`,
    [
      [...state.charges.values()].filter((c) => c.paid).map((c) => c.id),
      merchantIds,
      since,
      [...state.recurring.values()].filter((rc) => rc.payments.length).map((rc) => rc.id),
    ],
  );
  const undelivered = row.events.filter((id) => !recorder.arrivals.has(id));
  const { events, ...counts } = row;
  return {
    ...counts,
    events: events.length,
    undelivered,
    done: !row.charges && !row.recurring && !row.refunds && !row.withdrawals && !undelivered.length,
  };
}

export async function runChecks(opts: {
  url: string;
  state: LoadState;
  merchants: Merchant[];
  recorder: Recorder;
  outages: Window[];
  maxEventDelayMs: number;
  since: Date; // events from then on (the webhooks exist)
}): Promise<{ checks: Check[]; delays: number[]; duplicates: number }> {
  const { url, state, recorder, outages } = opts;
  const checks: Check[] = [];
  const add = (check: string, value: string | number, ok: boolean) => checks.push({ check, value, ok });
  const ids = [...state.charges.keys()];
  const merchantIds = opts.merchants.map((m) => m.merchantId);

  // 1. every payment the payer made is credited (PAID, or REFUNDED after), or returned to the payer
  const charges = await query<{ id: string; status: string; credits: number; paid_events: number }>(
    url,
    `select c.id, c.status,
       (select count(*)::int from ledger_transactions t where t.kind = 'charge.payment' and t.reference_id = c.id)
         as credits,
       (select count(*)::int from events e where e.type = 'charge.paid' and e.data->>'id' = c.id::text) as paid_events
     from charges c where c.id = any($1::uuid[])`,
    [ids],
  );
  const byId = new Map(charges.map((c) => [c.id, c]));
  const returned = new Set(
    (
      await query<{ end_to_end_id: string }>(
        url,
        `select end_to_end_id from unmatched_payments where status = 'RETURNED'`,
      )
    ).map((r) => r.end_to_end_id),
  );
  const paid = [...state.charges.values()].filter((c) => c.paid);
  const lost = paid.filter((c) => {
    const s = byId.get(c.id)?.status;
    return s !== 'PAID' && s !== 'REFUNDED' && !returned.has(c.endToEndId!);
  });
  add('payments made (sandbox pay answered 202)', paid.length, true);
  add(
    '  of which paid a charge / returned to the payer',
    `${paid.length - lost.length - countReturned()} / ${countReturned()}`,
    true,
  );
  add('payments lost (neither credited nor returned)', lost.length, lost.length === 0);
  function countReturned() {
    return paid.filter(
      (c) => !['PAID', 'REFUNDED'].includes(byId.get(c.id)?.status ?? '') && returned.has(c.endToEndId!),
    ).length;
  }
  const credited = charges.filter((c) => c.status === 'PAID' || c.status === 'REFUNDED');
  add(
    'paid charges credited exactly once',
    credited.filter((c) => c.credits === 1).length + '/' + credited.length,
    credited.every((c) => c.credits === 1),
  );
  const phantom = charges.filter((c) => c.credits > 0 && !['PAID', 'REFUNDED'].includes(c.status));
  const unpaidButPaid = credited.filter((c) => !state.charges.get(c.id)!.paid);
  add(
    'credits without a paid charge, or charges paid by nobody',
    phantom.length + unpaidButPaid.length,
    phantom.length + unpaidButPaid.length === 0,
  );
  add(
    'charge.paid events: exactly one per paid charge',
    credited.filter((c) => c.paid_events === 1).length + '/' + credited.length,
    credited.every((c) => c.paid_events === 1),
  );

  // 2. refunds accepted end REFUNDED; nothing left in progress
  const refunds = [...state.charges.values()].filter((c) => c.refundAccepted);
  const notRefunded = refunds.filter((c) => byId.get(c.id)?.status !== 'REFUNDED');
  add(
    'refunds accepted (202) / ended REFUNDED',
    `${refunds.length} / ${refunds.length - notRefunded.length}`,
    notRefunded.length === 0,
  );

  // 2b. Pix Automático: every attempt PAID accepted pays its recurring charge exactly once (or, when a second payment
  // or a rejection got there first, is returned to the payer); nothing FAILED is credited; partial refunds complete
  checks.push(...(await recurringChecks(url, state, returned)));

  // 3. balances: what the ledger holds equals what the charges and withdrawals say; never negative
  const balances = await query<{ merchant_id: string; available: string; expected: string; blocked: string }>(
    url,
    `select m.id as merchant_id,
       coalesce((select balance from ledger_accounts where code = 'merchant:' || m.id || ':available'), 0) as available,
       coalesce((select balance from ledger_accounts where code = 'merchant:' || m.id || ':blocked'), 0) as blocked,
       coalesce((select sum(coalesce(paid_amount, amount) - fee) from charges c where c.merchant_id = m.id
         and c.status in ('PAID', 'REFUNDED')), 0)
       - coalesce((select sum(r.amount - r.fee_amount) from refunds r join charges c on c.id = r.charge_id
         where c.merchant_id = m.id and r.status in ('PROCESSING', 'COMPLETED')), 0)
       - coalesce((select sum(amount) from withdrawals w where w.merchant_id = m.id
         and w.status in ('PROCESSING', 'COMPLETED') and w.returned_at is null), 0) as expected
     from merchants m where m.id = any($1::uuid[])`,
    [merchantIds],
  );
  const off = balances.filter((b) => b.available !== b.expected || Number(b.blocked) !== 0);
  add(
    'merchant balances equal paid charges (recurring included) - refunds - withdrawals',
    `${balances.length - off.length}/${balances.length}`,
    off.length === 0 && balances.length === merchantIds.length,
  );
  const negative = balances.filter((b) => Number(b.available) < 0);
  add('negative balances', negative.length, negative.length === 0);
  const verify = JSON.parse(
    execFileSync(process.execPath, [join(root, 'scripts/ops.ts'), 'ledger:verify'], {
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    }),
  ) as { ok: boolean; problemCount: number };
  add('ledger:verify problems', verify.problemCount, verify.ok);

  // 4. events: every event reached the well-behaved receiver, soon
  const events = await query<{ id: string; type: string; created_at: Date }>(
    url,
    'select id, type, created_at from events where merchant_id = any($1::uuid[]) and created_at >= $2',
    [merchantIds, opts.since],
  );
  const missing = events.filter((e) => !recorder.arrivals.has(e.id));
  add(
    'events recorded / delivered at least once',
    `${events.length} / ${events.length - missing.length}`,
    missing.length === 0,
  );
  // the Pix Automático events go the same way (the receivers subscribe to the whole catalogue)
  const auto = events.filter((e) => e.type.startsWith('mandate.') || e.type.startsWith('recurring_charge.'));
  const autoTypes = [...new Set(auto.map((e) => e.type))].sort();
  add(
    `  of which Pix Automático (${autoTypes.join(', ')}) / delivered`,
    `${auto.length} / ${auto.filter((e) => recorder.arrivals.has(e.id)).length}`,
    auto.every((e) => recorder.arrivals.has(e.id)),
  );
  const delays = events
    .filter((e) => recorder.arrivals.has(e.id))
    .map((e) => recorder.arrivals.get(e.id)![0] - e.created_at.getTime());
  const maxDelay = Math.max(0, ...delays);
  add(
    `slowest first delivery (limit ${opts.maxEventDelayMs / 1000} s)`,
    `${(maxDelay / 1000).toFixed(1)} s`,
    maxDelay <= opts.maxEventDelayMs,
  );
  const duplicates = [...recorder.arrivals.values()].filter((a) => a.length > 1).length;
  add('events received more than once (at-least-once window)', duplicates, true);

  // 5. answers: no 5xx and no dropped connection outside the PostgreSQL outage; bad input always 4xx
  const outside = state.answers.filter((a) => (a.status >= 500 || a.status === 0) && !inWindow(a.at, outages));
  const during = state.answers.filter((a) => (a.status >= 500 || a.status === 0) && inWindow(a.at, outages));
  add('requests answered', state.answers.length, true);
  add('5xx or no answer outside the PostgreSQL outage', outside.length, outside.length === 0);
  add('5xx or no answer during the outage (allowed)', during.length, true);
  const bad = state.badInput.filter((b) => !inWindow(b.at, outages));
  const not4xx = bad.filter((b) => b.status < 400 || b.status >= 500);
  add('bad input answered 4xx', `${bad.length - not4xx.length}/${bad.length}`, not4xx.length === 0);

  // 6. idempotency: a replay with the same key and body returns the same charge
  const replays = state.replays.filter((r) => r.status !== 0 && r.status < 500);
  const differing = replays.filter((r) => r.again !== r.first);
  add(
    'idempotent replays returning the original charge',
    `${replays.length - differing.length}/${replays.length}`,
    differing.length === 0,
  );

  // 7. queues: nothing dead-lettered, nothing left behind
  const [jobs] = await query<{ failed: number; backlog: number }>(
    url,
    `select count(*) filter (where state = 'failed')::int as failed,
       count(*) filter (where state in ('created', 'retry', 'active') and start_after < now() - interval '30 seconds'
         and name <> 'webhook.deliver')::int as backlog
     from pgboss.job`,
  );
  add('jobs failed for good (dead letters)', jobs.failed, jobs.failed === 0);
  add('worker jobs due for more than 30 s, still waiting', jobs.backlog, jobs.backlog === 0);
  return { checks, delays, duplicates };
}

// Pix Automático, from the database and from what the sandbox answered the merchants.
async function recurringChecks(url: string, state: LoadState, returned: Set<string>): Promise<Check[]> {
  const checks: Check[] = [];
  const add = (check: string, value: string | number, ok: boolean) => checks.push({ check, value, ok });
  const rows = await query<{
    id: string;
    status: string;
    hidden: string;
    paid_by: string | null;
    credits: number;
    paid_events: number;
    refunded: number;
    completed_refunds: number;
  }>(
    url,
    `select rc.id, rc.status, c.status as hidden,
       (select a->>'endToEndId' from jsonb_array_elements(rc.attempts) a where a->>'status' = 'PAID' limit 1) as paid_by,
       (select count(*)::int from ledger_transactions t
         where t.kind = 'recurring_charge.payment' and t.reference_id = rc.charge_id) as credits,
       (select count(*)::int from events e where e.type = 'recurring_charge.paid' and e.data->>'id' = rc.id::text)
         as paid_events,
       c.refunded_amount as refunded,
       (select count(*)::int from refunds r where r.charge_id = rc.charge_id and r.status = 'COMPLETED')
         as completed_refunds
     from recurring_charges rc join charges c on c.id = rc.charge_id
     where rc.id = any($1::uuid[])`,
    [[...state.recurring.keys()]],
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const all = [...state.recurring.values()];
  const paying = all.filter((rc) => rc.payments.length);
  const payments = paying.flatMap((rc) => rc.payments.map((e) => ({ rc, e })));
  // a payment is the one that paid its recurring charge, or was returned to the payer
  const lost = payments.filter(({ rc, e }) => byId.get(rc.id)?.paid_by !== e && !returned.has(e));
  const paid = rows.filter((r) => r.status === 'PAID');
  add(
    'recurring charges created / attempts PAID accepted (202) / REJECTED accepted',
    `${all.length} / ${payments.length} / ${all.filter((rc) => rc.rejected).length}`,
    true,
  );
  add(
    '  of which paid a recurring charge / returned to the payer',
    `${payments.length - lost.length - payments.filter(({ e }) => returned.has(e)).length} / ${
      payments.filter(({ e }) => returned.has(e)).length
    }`,
    true,
  );
  add('recurring payments lost (neither credited nor returned)', lost.length, lost.length === 0);
  // a recurring charge the payer paid ends PAID, unless its rejection won the race (then FAILED, its payment returned)
  const unpaid = paying.filter((rc) => {
    const s = byId.get(rc.id)?.status;
    return s !== 'PAID' && !(rc.rejected && s === 'FAILED');
  });
  add(
    'recurring charges paid by the payer ending PAID (or FAILED by a racing rejection)',
    unpaid.length === 0 ? `${paying.length}/${paying.length}` : `${paying.length - unpaid.length}/${paying.length}`,
    unpaid.length === 0,
  );
  add(
    'PAID recurring charges credited exactly once (recurring_charge.payment)',
    `${paid.filter((r) => r.credits === 1 && r.hidden === 'PAID').length}/${paid.length}`,
    paid.every((r) => r.credits === 1 && r.hidden === 'PAID'),
  );
  add(
    'recurring_charge.paid events: exactly one per PAID recurring charge',
    `${paid.filter((r) => r.paid_events === 1).length}/${paid.length}`,
    paid.every((r) => r.paid_events === 1),
  );
  const failed = rows.filter((r) => r.status === 'FAILED');
  const creditedFailed = failed.filter((r) => r.credits > 0 || r.hidden === 'PAID' || r.paid_events > 0);
  const phantom = rows.filter((r) => r.status !== 'PAID' && r.credits > 0);
  const byNobody = paid.filter((r) => !state.recurring.get(r.id)!.payments.length);
  add(
    'FAILED recurring charges / credited; credits without a PAID one, or paid by nobody',
    `${failed.length} / ${creditedFailed.length}; ${phantom.length + byNobody.length}`,
    creditedFailed.length + phantom.length + byNobody.length === 0,
  );
  const refunded = all.filter((rc) => rc.refunds.length);
  const wrong = refunded.filter((rc) => {
    const r = byId.get(rc.id);
    return r?.completed_refunds !== rc.refunds.length || r.refunded !== rc.refunds.reduce((a, b) => a + b, 0);
  });
  add(
    'partial refunds of recurring charges accepted (202) / COMPLETED, amounts matching',
    `${refunded.length} / ${refunded.length - wrong.length}`,
    wrong.length === 0,
  );
  return checks;
}
