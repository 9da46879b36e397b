// The events' use cases: list and read a merchant's events, as webhooks deliver them.
import { ormSql } from '../platform/sql.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { countedPage } from '../platform/counters.ts';
import { NotFoundError } from '../platform/errors.ts';
import { isUuid } from '../platform/base.entity.ts';
import { eventBody } from '../webhooks/outbox.ts';
import { EVENT_BY_ID, EVENT_PAGE, RESOURCE_PAGE, type EventRow } from './events.sql.ts';

export type EventFilter = { type?: string; resourceId?: string };

// GET /v1/events: the merchant's events, newest first (by creation), each as webhooks deliver it.
export async function listEvents(
  em: EntityManager,
  merchantId: string,
  { type, resourceId }: EventFilter,
  page: number,
  limit: number,
) {
  const { total, rows } = resourceId
    ? await resourcePage(em, merchantId, resourceId, type, page, limit)
    : await countedPage<EventRow>(em, EVENT_PAGE, { merchant_id: merchantId, type }, page, limit);
  return { page, limit, total, events: rows.map(eventBody) };
}

// One resource has a handful of events: counted on the rows themselves.
async function resourcePage(
  em: EntityManager,
  merchantId: string,
  resourceId: string,
  type: string | undefined,
  page: number,
  limit: number,
) {
  const keys = type ? [merchantId, resourceId, type] : [merchantId, resourceId];
  const rows = await ormSql(em).query<EventRow & { total: string }>(type ? RESOURCE_PAGE.ofType : RESOURCE_PAGE.all, [
    ...keys,
    limit,
    (page - 1) * limit,
  ]);
  return { total: Number(rows[0].total), rows: rows[0].id ? rows : [] };
}

// GET /v1/events/:id: unknown, malformed and other merchants' ids are all 404.
export async function getEvent(em: EntityManager, merchantId: string, id: string) {
  const [row] = isUuid(id) ? await ormSql(em).query<EventRow>(EVENT_BY_ID, [id, merchantId]) : [];
  if (!row) throw new NotFoundError('Evento não encontrado');
  return eventBody(row);
}
