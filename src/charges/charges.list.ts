// The charges listing (GET /v1/charges): newest first, optionally of one status, counted by the counters.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import { countedPage } from '../platform/counters.ts';
import { type ChargeStatus } from './charge.entity.ts';
import type { ChargeRow } from './charge-row.ts';
import * as sql from './charges.sql.ts';
import { chargeRowView } from './charges.view.ts';

// GET /v1/charges: newest first, optionally of one status (total from the append-only counters).
export async function listCharges(
  deps: Pick<Services, 'config'>,
  em: EntityManager,
  merchantId: string,
  q: { page: number; limit: number; status?: ChargeStatus; today: string },
) {
  const { total, rows } = await countedPage<ChargeRow>(
    em,
    sql.CHARGE_PAGE,
    { merchant_id: merchantId, status: q.status },
    q.page,
    q.limit,
  );
  const opts = { publicBaseUrl: deps.config.publicBaseUrl, today: q.today };
  return { page: q.page, limit: q.limit, total, charges: rows.map((r) => chargeRowView(r, opts)) };
}
