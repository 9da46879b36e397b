// Operator commands of money going back to payers: unmatched payments, failed refunds.
import { OpsUsageError, type Command } from '../platform/ops.ts';
import { dateFlag } from '../platform/dates.ts';
import { UNMATCHED_STATUSES } from './unmatched-payment.entity.ts';
import { refundView } from './refunds.view.ts';
import { ormSql } from '../platform/sql.ts';
import * as sql from './refunds.sql.ts';

function limitOf(raw: unknown): number {
  if (raw === undefined) return 100;
  const n = Number(raw);
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || n < 1 || n > 10_000)
    throw new OpsUsageError('--limit must be 1..10000');
  return n;
}

// Operators' view of money going back to payers.
export const refundCommands: Command[] = [
  {
    name: 'payments:unmatched',
    summary:
      'payments that paid no charge (unknown, expired, already paid, wrong amount) and the state of their return',
    flags: {
      status: { type: 'string', description: `only this state: ${UNMATCHED_STATUSES.join(', ')}` },
      limit: { type: 'string', description: 'at most this many, newest first (default 100)' },
    },
    async run({ em }, flags) {
      const status = flags.status === undefined ? undefined : String(flags.status);
      if (status !== undefined && !(UNMATCHED_STATUSES as readonly string[]).includes(status)) {
        throw new OpsUsageError(`--status must be one of ${UNMATCHED_STATUSES.join(', ')}`);
      }
      const rows = await ormSql(em).query<
        sql.UnmatchedRow & {
          refund_id: string | null;
          refund_status: string | null;
          refund_failure_reason: string | null;
        }
      >(sql.UNMATCHED_LIST, [status ?? null, limitOf(flags.limit)]);
      return {
        count: rows.length,
        payments: rows.map((r) => ({
          id: r.id,
          endToEndId: r.end_to_end_id,
          txid: r.txid,
          chargeId: r.charge_id,
          amount: Number(r.amount), // bigint
          paidAt: new Date(r.paid_at).toISOString(),
          reason: r.reason,
          status: r.status,
          refund: r.refund_id
            ? { id: r.refund_id, status: r.refund_status, failureReason: r.refund_failure_reason }
            : null,
          createdAt: new Date(r.created_at).toISOString(),
        })),
      };
    },
  },
  {
    name: 'refunds:failed',
    summary:
      "merchants' refunds the acquirer did not make (NAO_REALIZADO): their hold went back to the merchant and the platform",
    flags: {
      since: { type: 'string', description: 'failed at or after this ISO 8601 time (default: the last 30 days)' },
      limit: { type: 'string', description: 'at most this many, newest first (default 100)' },
    },
    async run({ em }, flags) {
      const since =
        flags.since === undefined ? new Date(Date.now() - 30 * 86400_000) : new Date(dateFlag(flags.since, 'since'));
      const rows = await ormSql(em).query<sql.RefundRow & { txid: string | null }>(sql.FAILED_REFUNDS, [
        since,
        limitOf(flags.limit),
      ]);
      return {
        count: rows.length,
        refunds: rows.map((r) => ({
          ...refundView(r),
          chargeId: r.charge_id,
          txid: r.txid,
          merchantId: r.merchant_id,
        })),
      };
    },
  },
];
