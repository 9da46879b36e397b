// Operator commands of webhooks: failed deliveries replayed.
import { ormSql } from '../platform/sql.ts';
import { OpsError, OpsUsageError, type Command } from '../platform/ops.ts';
import { deliverJob, enqueueMany, QUEUES } from '../platform/queue.ts';
import { isUuid } from '../platform/base.entity.ts';
import { dateFlag } from '../platform/dates.ts';
import { REPLAY, REPLAY_CANDIDATES, type ReplayCandidate } from './webhooks.sql.ts';
import { transactional } from '../platform/transaction.ts';

type Candidate = ReplayCandidate;
type Flags = Record<string, string | boolean | undefined>;

// Checked here, compared by PostgreSQL: the text keeps its microseconds, which a JS Date would drop.
function isoFlag(flags: Flags, name: string): string | undefined {
  const raw = flags[name];
  if (raw === undefined) return undefined;
  return dateFlag(raw, name);
}

// The parameters of REPLAY_CANDIDATES; a FAILED status is checked per row so an explicit --delivery can say why it was
// skipped.
function selection(flags: Flags): unknown[] {
  // Either the log id or the webhook-id (deliveryId) a merchant quotes.
  const delivery = flags.delivery === undefined ? null : String(flags.delivery);
  if (flags.webhook !== undefined && !isUuid(String(flags.webhook)))
    throw new OpsUsageError('--webhook must be a webhook id (UUID)');
  const webhook = flags.webhook === undefined ? null : String(flags.webhook);
  const since = isoFlag(flags, 'since') ?? null;
  const until = isoFlag(flags, 'until') ?? null;
  if (delivery === null && webhook === null && !since && !until && !flags.all)
    throw new OpsUsageError(
      'give at least one of --delivery, --webhook, --since, --until (or --all to replay every failed delivery)',
    );
  // filters by range select failed ones only; one delivery named is reported whatever its status
  return [delivery, delivery !== null && isUuid(delivery) ? delivery : null, webhook, since, until, delivery !== null];
}

export const webhookCommands: Command[] = [
  {
    name: 'deliveries:replay',
    summary: 're-send FAILED webhook deliveries under the same webhook-id, with a fresh retry schedule',
    flags: {
      delivery: { type: 'string', description: 'one delivery: its log id or its deliveryId (webhook-id)' },
      webhook: { type: 'string', description: 'failed deliveries of this webhook id' },
      since: { type: 'string', description: 'failed deliveries created at or after this ISO 8601 time' },
      until: { type: 'string', description: 'failed deliveries created before this ISO 8601 time' },
      all: { type: 'boolean', description: 'every failed delivery (required when no other filter is given)' },
      'dry-run': { type: 'boolean', description: 'print what would be replayed, change nothing' },
    },
    async run({ em, boss }, flags) {
      const params = selection(flags);
      const dryRun = flags['dry-run'] === true;
      const queue = dryRun ? undefined : await boss();
      return transactional(em, async (tx) => {
        // Locked so two operators (or a replay racing a daemon) cannot enqueue the same delivery twice.
        const rows = await ormSql(tx).query<Candidate>(REPLAY_CANDIDATES, params);
        const skipped: { id: string; reason: string }[] = [];
        const chosen: Candidate[] = [];
        for (const r of rows) {
          if (r.status !== 'FAILED')
            skipped.push({ id: r.id, reason: `status is ${r.status}, only FAILED deliveries are replayed` });
          else if (r.deleted_at) skipped.push({ id: r.id, reason: 'webhook deleted' });
          else if (r.webhook_status !== 'ACTIVE') skipped.push({ id: r.id, reason: 'webhook INACTIVE' });
          else chosen.push(r);
        }
        if (flags.delivery !== undefined && rows.length === 0)
          throw new OpsError(`no delivery ${String(flags.delivery)}`);
        if (!dryRun && chosen.length > 0) {
          await ormSql(tx).run(REPLAY, [chosen.map((r) => r.id)]);
          const jobs = chosen.map((r) => deliverJob(r.merchant_id, { id: r.id, attempt: r.attempts, step: 0 }));
          await enqueueMany(queue!, tx, QUEUES.webhookDeliver, jobs);
        }
        return {
          ...(dryRun ? { dryRun: true, wouldReplay: chosen.length } : { replayed: chosen.length }),
          deliveries: chosen.map((r) => r.id),
          deliveryIds: chosen.map((r) => r.delivery_id),
          skipped,
        };
      });
    },
  },
];
