// The database as the whole service sees it: every entity the ORM knows about, the ORM built over them, and the set-up
// that brings a database up to date. One list shared by the processes, the CLI, the tests and the benchmarks.
import type { Options } from '@mikro-orm/postgresql';
import type { Logger } from './platform/logger.ts';
import { createOrm as createOrmOf, migrate, ormConfig as ormConfigOf, type MikroORM } from './platform/db.ts';
import { createBoss } from './platform/queue.ts';
import { User } from './auth/user.entity.ts';
import { ApiKey } from './auth/api-key.entity.ts';
import { Merchant } from './merchants/merchant.entity.ts';
import { PixKey } from './pix-keys/pix-key.entity.ts';
import { Customer } from './charges/customer.entity.ts';
import { Charge } from './charges/charge.entity.ts';
import { ChargeCount } from './charges/charge-count.entity.ts';
import { Refund } from './refunds/refund.entity.ts';
import { UnmatchedPayment } from './refunds/unmatched-payment.entity.ts';
import { LedgerAccount, LedgerEntry, LedgerTransaction } from './ledger/ledger.entity.ts';
import { StatementEntry } from './ledger/statement.entity.ts';
import { Event } from './webhooks/event.entity.ts';
import { Webhook, WebhookDelivery } from './webhooks/webhook.entity.ts';
import { Withdrawal } from './withdrawals/withdrawal.entity.ts';
import { WithdrawalCount } from './withdrawals/withdrawal-count.entity.ts';
import { SandboxTransfer } from './acquirer/sandbox-transfer.entity.ts';
import { Infraction } from './infractions/infraction.entity.ts';
import { Mandate, MandateCount } from './recurring/mandate.entity.ts';
import { RecurringCharge, RecurringChargeCount } from './recurring/recurring-charge.entity.ts';
import {
  EventCount,
  EventStreamConnection,
  EventStreamPending,
  EventStreamPosition,
} from './events/event-stream.entity.ts';

export const entities = [
  User,
  ApiKey,
  Merchant,
  PixKey,
  Customer,
  Charge,
  ChargeCount,
  UnmatchedPayment,
  Refund,
  LedgerAccount,
  LedgerTransaction,
  LedgerEntry,
  StatementEntry,
  Event,
  EventCount,
  EventStreamPosition,
  EventStreamPending,
  EventStreamConnection,
  Webhook,
  WebhookDelivery,
  Withdrawal,
  WithdrawalCount,
  Infraction,
  SandboxTransfer,
  Mandate,
  MandateCount,
  RecurringCharge,
  RecurringChargeCount,
];

export const ormConfig = (databaseUrl: string, overrides: Partial<Options> = {}): Options =>
  ormConfigOf(databaseUrl, entities, overrides);

export const createOrm = (databaseUrl: string, overrides: Partial<Options> = {}, prepare = false): Promise<MikroORM> =>
  createOrmOf(databaseUrl, entities, overrides, prepare);

// Brings a database up to date: MikroORM migrations, then pg-boss' own schema and our queues. Safe to run concurrently.
export async function setupDatabase(databaseUrl: string, logger: Logger): Promise<string[]> {
  const orm = await createOrm(databaseUrl, { pool: { min: 0, max: 2 } });
  try {
    const applied = await migrate(orm);
    const boss = await createBoss(databaseUrl, logger);
    await boss.stop({ graceful: false });
    return applied;
  } finally {
    await orm.close();
  }
}
