// The mandates' use cases: read, list, cancel, ask again, a recurrence's location.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AcquirerDeps } from '../acquirer/acquirer.ts';
import type { Services } from '../platform/services.ts';
import { BusinessRuleError, ConflictError, NotFoundError } from '../platform/errors.ts';
import { isUuid } from '../platform/base.entity.ts';
import { countedPage } from '../platform/counters.ts';
import { ormSql } from '../platform/sql.ts';
import { transactional } from '../platform/transaction.ts';
import { enqueue, QUEUES } from '../platform/queue.ts';
import type { MandateStatus } from './mandate.entity.ts';
import * as sql from './mandates.sql.ts';
import { mandateView, recLocationView } from './mandates.view.ts';
import { cancelMandate, MANDATE_NOT_FOUND } from './mandates.states.ts';
import { requestIdFor } from './mandates.create.ts';

// The merchant's mandates: read, listed, cancelled, asked again (PUSH), and a recurrence's location.
async function ofMerchant(em: EntityManager, merchantId: string, id: string): Promise<sql.MandateRow> {
  const [row] = isUuid(id) ? await ormSql(em).query<sql.MandateRow>(sql.OF_MERCHANT, [id, merchantId]) : [];
  if (!row) throw new NotFoundError(MANDATE_NOT_FOUND);
  return row;
}

// GET /v1/mandates/:id (another merchant's: 404).
export async function getMandate(deps: Pick<Services, 'config'>, em: EntityManager, merchantId: string, id: string) {
  return mandateView(await ofMerchant(em, merchantId, id), deps.config.publicBaseUrl);
}

// GET /v1/mandates: newest first, of a status and/or a payer. By status (or none) the total comes from the counters;
// by payer it is counted over the (merchant, document) index.
export async function listMandates(
  deps: Pick<Services, 'config'>,
  em: EntityManager,
  merchantId: string,
  q: { page: number; limit: number; status?: MandateStatus; customerDocument?: string },
) {
  const view = (r: sql.MandateRow) => mandateView(r, deps.config.publicBaseUrl, { image: false });
  if (q.customerDocument === undefined) {
    const { total, rows } = await countedPage<sql.MandateRow>(
      em,
      sql.MANDATE_PAGE,
      { merchant_id: merchantId, status: q.status },
      q.page,
      q.limit,
    );
    return { page: q.page, limit: q.limit, total, mandates: rows.map(view) };
  }
  const of = [merchantId, q.customerDocument, q.status ?? null];
  const [{ total }] = await ormSql(em).query<{ total: string }>(sql.COUNT_OF_CUSTOMER, of);
  const offset = (q.page - 1) * q.limit;
  const rows =
    offset < Number(total)
      ? await ormSql(em).query<sql.MandateRow>(sql.PAGE_OF_CUSTOMER, [...of, q.limit, offset])
      : [];
  return { page: q.page, limit: q.limit, total: Number(total), mandates: rows.map(view) };
}

export const ONLY_CANCEL = 'Somente o cancelamento é permitido nesta autorização';

// PATCH /v1/mandates/:id: the merchant cancels ({ status: CANCELED, reason? }); any other change 422, and so is a
// mandate already REJECTED, EXPIRED or CANCELED (the loser of two cancels at once included).
export async function patchMandate(
  deps: Pick<AcquirerDeps, 'boss' | 'config' | 'clock' | 'acquirer'>,
  em: EntityManager,
  merchantId: string,
  id: string,
  body: Record<string, unknown>,
) {
  const m = await ofMerchant(em, merchantId, id);
  if (body.status !== 'CANCELED' || Object.keys(body).some((k) => k !== 'status' && k !== 'reason'))
    throw new BusinessRuleError(ONLY_CANCEL, 'mandate_only_cancel');
  const reason = typeof body.reason === 'string' ? body.reason : null;
  const { mandate, changed } = await cancelMandate(deps, em, { mandateId: m.id, by: 'MERCHANT', reason });
  if (!changed)
    throw new BusinessRuleError(`Autorização ${mandate.status}: não pode mais ser cancelada`, 'mandate_not_cancelable');
  return mandate;
}

export const REQUEST_PENDING = 'Já há uma solicitação enviada ao pagador aguardando resposta';

// POST /v1/mandates/:id/request: a PUSH mandate still CREATED whose last request EXPIRED or was REJECTED sends a new
// one (409 while one is SENT).
export async function requestAgain(
  deps: Pick<Services, 'boss' | 'config'>,
  em: EntityManager,
  merchantId: string,
  id: string,
) {
  const m = await ofMerchant(em, merchantId, id);
  if (m.journey !== 'PUSH')
    throw new BusinessRuleError('Somente autorizações da jornada PUSH têm solicitação ao pagador', 'mandate_not_push');
  if (m.status !== 'CREATED')
    throw new BusinessRuleError(`Autorização ${m.status}: não aceita nova solicitação`, 'mandate_not_requestable');
  if (m.request_status === 'SENT') throw new ConflictError(REQUEST_PENDING, 'mandate_request_pending');
  if (m.request_status !== 'EXPIRED' && m.request_status !== 'REJECTED')
    throw new BusinessRuleError(
      'Nova solicitação só depois da última EXPIRED ou REJECTED',
      'mandate_request_not_renewable',
    );
  const requestId = requestIdFor(m.rec_id);
  return transactional(em, async (tx) => {
    const [moved] = await ormSql(tx).query<sql.MandateRow>(sql.NEW_REQUEST, [requestId, m.id]);
    if (!moved) throw new ConflictError(REQUEST_PENDING, 'mandate_request_pending'); // another request (or the payer) got there first
    await enqueue(deps.boss, tx, QUEUES.mandateRequest, { mandateId: m.id, requestId });
    return mandateView(moved, deps.config.publicBaseUrl);
  });
}

// GET /pix/rec/:recId: a QR journey's recurrence as a payload location (sandbox; public, like /pix/qr/:txid).
export async function mandateLocation(em: EntityManager, recId: string) {
  const [r] = await ormSql(em).query<sql.RecLocationRow>(sql.REC_LOCATION, [recId]);
  if (!r) throw new NotFoundError('Recorrência não encontrada');
  return recLocationView(r);
}
