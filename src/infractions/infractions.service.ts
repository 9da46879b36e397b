// The infractions' reads: list and get a merchant's infractions.
import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid } from '../platform/base.entity.ts';
import { NotFoundError } from '../platform/errors.ts';
import { ormSql } from '../platform/sql.ts';
import * as sql from './infractions.sql.ts';
import { infractionView } from './infractions.view.ts';

// GET /v1/infractions: newest first, paginated like the other lists.
export async function listInfractions(em: EntityManager, merchantId: string, page: number, limit: number) {
  const rows = await ormSql(em).query<sql.InfractionRow & { total: string }>(sql.PAGE, [
    merchantId,
    limit,
    (page - 1) * limit,
  ]);
  const total = rows.length
    ? Number(rows[0].total)
    : Number((await ormSql(em).query<{ n: string }>(sql.COUNT, [merchantId]))[0].n);
  return { page, limit, total, infractions: rows.map(infractionView) };
}

// GET /v1/infractions/:id (404 for unknown ids and other merchants' ids).
export async function getInfraction(em: EntityManager, merchantId: string, id: string) {
  const [row] = isUuid(id) ? await ormSql(em).query<sql.InfractionRow>(sql.FOR_MERCHANT, [id, merchantId]) : [];
  if (!row) throw new NotFoundError('Infração não encontrada');
  return infractionView(row);
}
