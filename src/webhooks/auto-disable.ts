// A webhook whose deliveries all failed for long enough is disabled automatically.
import type { Query } from '../platform/pg.ts';

/**
 * Automatic disabling (contract): a webhook whose last `minFailures` deliveries all failed for good, the first of them
 * at least `afterSeconds` before the last, with no success between, becomes INACTIVE with disabledReason FAILING.
 *
 * Evaluated without reading any log: `webhooks.failures` holds the times of the final failures since the last success,
 * oldest first, at most `minFailures` of them. A delivery ending (SUCCEEDED or FAILED) updates it in the transaction
 * that records the attempt: a success empties it (RECORD_ATTEMPTS), a final failure appends (PUSH_FAILURES), and the
 * check reads the first and last entries (DISABLE_FAILING). The webhook rows are locked first, in id order, so daemons
 * recording outcomes of the same webhooks at once queue rather than lose an update.
 */
export type DisableSettings = { minFailures: number; afterSeconds: number };

export const LOCK_WEBHOOKS = `
  select id
    from webhooks
   where id = any($1::uuid[])
   order by id
     for update`;

// Appends each webhook's new final failures and keeps the last $2.
const PUSH_FAILURES = `
  update webhooks w
     set failures = (w.failures || r.failed)[greatest(1, cardinality(w.failures || r.failed) - $2 + 1):]
    from jsonb_to_recordset($1::jsonb) as r(webhook_id uuid, failed timestamptz[])
   where w.id = r.webhook_id`;

const DISABLE_FAILING = `
  update webhooks
     set status = 'INACTIVE', disabled_reason = 'FAILING', disabled_at = now(), updated_at = now()
   where id = any($1::uuid[]) and status = 'ACTIVE' and deleted_at is null and cardinality(failures) >= $2
     and failures[cardinality(failures)] - failures[1] >= $3 * interval '1 second'
  returning id`;

export type Outcome = { webhookId: string; status: 'SUCCEEDED' | 'FAILED'; at: Date };

/**
 * Records final failures (inside the transaction that recorded the attempts, webhooks already locked) and disables the
 * webhooks that qualify; returns their ids. A failure that ended before a success of the same webhook in this batch is
 * not counted: that success came after it.
 */
export async function recordFinalFailures(
  query: Query,
  outcomes: Outcome[],
  { minFailures, afterSeconds }: DisableSettings,
): Promise<string[]> {
  const lastSuccess = new Map<string, number>();
  for (const o of outcomes)
    if (o.status === 'SUCCEEDED') lastSuccess.set(o.webhookId, Math.max(lastSuccess.get(o.webhookId) ?? 0, +o.at));
  const failed = new Map<string, Date[]>();
  for (const o of outcomes) {
    if (o.status !== 'FAILED' || +o.at < (lastSuccess.get(o.webhookId) ?? 0)) continue;
    failed.set(o.webhookId, [...(failed.get(o.webhookId) ?? []), o.at]);
  }
  if (failed.size === 0) return [];
  const rows = [...failed].map(([webhookId, at]) => ({
    webhook_id: webhookId,
    failed: at.sort((a, b) => +a - +b).map((d) => d.toISOString()),
  }));
  await query(PUSH_FAILURES, [JSON.stringify(rows), minFailures]);
  const { rows: disabled } = await query<{ id: string }>(DISABLE_FAILING, [
    [...failed.keys()],
    minFailures,
    afterSeconds,
  ]);
  return disabled.map((r) => r.id);
}
