// A charge read (GET /v1/charges/:id, the sandbox's pay): the row by a named statement, its view and latest refund.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import { NotFoundError } from '../platform/errors.ts';
import { isUuid } from '../platform/base.entity.ts';
import { ormSql } from '../platform/sql.ts';
import type { ChargeRow } from './charge-row.ts';
import * as sql from './charges.sql.ts';
import { chargeRowView } from './charges.view.ts';

// One charge of the merchant, as a row (a named statement: the hot read of GET /v1/charges/:id and the sandbox's pay).
export async function findCharge(em: EntityManager, merchantId: string, id: string): Promise<ChargeRow> {
  const [charge] = isUuid(id) ? await ormSql(em).query<ChargeRow>(sql.CHARGE_BY_ID, [id, merchantId]) : [];
  if (!charge) throw new NotFoundError('Cobrança não encontrada');
  return charge;
}

// The latest refund of a charge, as the charge shows it (null: none). src/refunds reads and views it (latestRefund,
// refunds.service.ts), given to chargeRoutes by the composition (src/app.ts): refunds sit above charges.
export type LatestRefund<R> = (em: EntityManager, chargeId: string) => Promise<R | null>;

// GET /v1/charges/:id: one charge, with its image, tracking and latest refund; amountDue as of `today`.
export async function getCharge<R>(
  deps: Pick<Services, 'config'>,
  em: EntityManager,
  merchantId: string,
  id: string,
  today: string,
  latestRefund: LatestRefund<R>,
) {
  const charge = await findCharge(em, merchantId, id);
  const refund = await latestRefund(em, charge.id);
  return {
    ...chargeRowView(charge, {
      publicBaseUrl: deps.config.publicBaseUrl,
      image: true,
      tracking: true,
      today,
    }),
    refund,
  };
}
