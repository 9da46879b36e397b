// The deliveries' use cases: list a webhook's deliveries, resend one.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PgBoss } from 'pg-boss';
import { v7 as uuidv7 } from 'uuid';
import { isUuid } from '../platform/base.entity.ts';
import { ConflictError, NotFoundError, TooManyRequestsError } from '../platform/errors.ts';
import { deliverJob, enqueueMany, QUEUES } from '../platform/queue.ts';
import { transactional } from '../platform/transaction.ts';
import type { EventType } from './catalog.ts';
import type { EventSchema } from './catalog-schemas.ts';
import { eventBody } from './outbox.ts';
import { MAX_ATTEMPTS } from './retry.ts';
import { newDeliveryId } from './signing.ts';
import type { IWebhook } from './webhook.entity.ts';
import { findOwned } from './webhooks.service.ts';
import { logView } from './webhooks.view.ts';
import type { LogRow } from './webhooks.sql.ts';
import {
  DELIVERY_BY_ID,
  DELIVERY_FOR_UPDATE,
  INSERT_TEST_DELIVERY,
  RECENT_TEST_SENDS,
  RECOVERABLE,
  deliveryLogs,
  type ListedStatus,
  REQUEUE,
} from './deliveries.sql.ts';
import { ormSql } from '../platform/sql.ts';

export type DeliveryStatus = ListedStatus;
export type DeliveryFilter = { status?: DeliveryStatus; event?: string };

// GET /v1/webhooks/merchant/:id/deliveries: every log of the webhook, newest first (not only the last 20).
export async function listDeliveries(
  em: EntityManager,
  merchantId: string,
  webhookId: string,
  { status, event }: DeliveryFilter,
  page: number,
  limit: number,
) {
  await findOwned(em, merchantId, webhookId);
  const { count, page: pageOf } = deliveryLogs(status, event !== undefined);
  const params = event === undefined ? [webhookId] : [webhookId, event];
  const { query } = ormSql(em);
  const [{ total }] = await query<{ total: number }>(count, params);
  const rows = total > (page - 1) * limit ? await query<LogRow>(pageOf, [...params, limit, (page - 1) * limit]) : [];
  return { page, limit, total, deliveries: rows.map(logView) };
}

// Deliveries go only to an ACTIVE webhook: the daemon cancels the attempts of a paused one.
function assertActive(webhook: IWebhook) {
  if (webhook.status !== 'ACTIVE')
    throw new ConflictError('Webhook inativo: ative-o (status ACTIVE) antes de enviar', 'webhook_inactive');
}

// What an attempt job carries: `attempt` guards the row's count; `step` places it in the retry schedule.
const job = (webhook: IWebhook, id: string, attempt: number, step: number) =>
  deliverJob(webhook.merchant.id, { id, attempt, step });

/**
 * One more attempt now, under the same webhook-id (the daemon signs it afresh): the row goes back to PENDING and its
 * job commits with it. A resend is a single attempt (it starts at the schedule's last step), so a failing endpoint is
 * not retried for hours by a click. A delivery still PENDING has its own attempt scheduled: 409.
 */
export async function resendDelivery(
  em: EntityManager,
  boss: PgBoss,
  merchantId: string,
  webhookId: string,
  ref: string,
) {
  return transactional(em, async (tx) => {
    const webhook = await findOwned(tx, merchantId, webhookId);
    const byUuid = isUuid(ref);
    const [row] = byUuid
      ? await ormSql(tx).query<LogRow>(DELIVERY_FOR_UPDATE.byUuid, [webhookId, ref, ref])
      : await ormSql(tx).query<LogRow>(DELIVERY_FOR_UPDATE.byDeliveryId, [webhookId, ref]);
    if (!row) throw new NotFoundError('Entrega não encontrada');
    assertActive(webhook);
    if (row.status === 'PENDING')
      throw new ConflictError(
        'Entrega ainda pendente: a próxima tentativa já está agendada (veja nextAttemptAt)',
        'delivery_pending',
      );
    await ormSql(tx).run(REQUEUE, [[row.id]]);
    await enqueueMany(boss, tx, QUEUES.webhookDeliver, [job(webhook, row.id, row.attempts, MAX_ATTEMPTS - 1)]);
    const [after] = await ormSql(tx).query<LogRow>(DELIVERY_BY_ID, [row.id]);
    return logView(after);
  });
}

/**
 * Every delivery of the webhook created in [since, until) that ended without success goes back to PENDING with a
 * fresh retry schedule (as an operator's replay), same webhook-ids; rows and jobs commit together.
 */
export async function recoverDeliveries(
  em: EntityManager,
  boss: PgBoss,
  merchantId: string,
  webhookId: string,
  since: string,
  until: string,
): Promise<number> {
  return transactional(em, async (tx) => {
    const webhook = await findOwned(tx, merchantId, webhookId);
    assertActive(webhook);
    const rows = await ormSql(tx).query<{ id: string; attempts: number }>(RECOVERABLE, [webhookId, since, until]);
    if (rows.length === 0) return 0;
    await ormSql(tx).run(REQUEUE, [rows.map((r) => r.id)]);
    await enqueueMany(
      boss,
      tx,
      QUEUES.webhookDeliver,
      rows.map((r) => job(webhook, r.id, r.attempts, 0)),
    );
    return rows.length;
  });
}

// Test sends per webhook and minute: enough to try an endpoint, too few to flood the daemons (a 429 beyond).
export const TEST_SENDS_PER_MINUTE = 10;
export const TEST_SENDS_LIMITED = `Limite de envios de teste atingido: no máximo ${TEST_SENDS_PER_MINUTE} por minuto por webhook`;

/**
 * A test delivery: the catalogue's example of `event` (a fresh id and createdAt) as a normal, logged delivery with
 * the usual retries. It has no event row: GET /v1/events and the stream never show it. At most TEST_SENDS_PER_MINUTE
 * per webhook, counted from its logs under the webhook's row lock (so concurrent sends, on any API process, cannot
 * pass the limit together).
 */
export async function sendTestDelivery(
  em: EntityManager,
  boss: PgBoss,
  schemas: Map<EventType, EventSchema>,
  merchantId: string,
  webhookId: string,
  event: EventType,
) {
  return transactional(em, async (tx) => {
    const webhook = await findOwned(tx, merchantId, webhookId, true);
    assertActive(webhook);
    const [recent] = await ormSql(tx).query<{ n: number; retry_after: number }>(RECENT_TEST_SENDS, [webhookId]);
    if (recent.n >= TEST_SENDS_PER_MINUTE)
      throw new TooManyRequestsError(TEST_SENDS_LIMITED, recent.retry_after, 'test_sends_limited');
    const id = uuidv7();
    const payload = JSON.stringify(
      eventBody({ id: uuidv7(), type: event, data: schemas.get(event)!.example.data, created_at: new Date() }),
    );
    await ormSql(tx).run(INSERT_TEST_DELIVERY, [id, newDeliveryId(), webhookId, event, webhook.url, payload]);
    await enqueueMany(boss, tx, QUEUES.webhookDeliver, [job(webhook, id, 0, 0)]);
    const [row] = await ormSql(tx).query<LogRow>(DELIVERY_BY_ID, [id]);
    return logView(row);
  });
}
