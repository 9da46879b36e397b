import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deps } from '../deps.ts';
import type { MerchantSnapshot } from '../auth/principal.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../platform/errors.ts';
import { isUuid, newId } from '../platform/base.entity.ts';
import { IDEMPOTENCY_CONFLICT, requestHash } from '../platform/idempotency.ts';
import { platformFee } from '../merchants/merchants.service.ts';
import { Charge, type ChargeStatus, type ICharge } from './charge.entity.ts';
import { buildDynamicPix } from './brcode.ts';
import { chargeRowView, chargeView, type ChargeFields, type ChargeRow } from './charge.view.ts';

export type CustomerInput = { name: string; document: string; email?: string; phone?: string };
export type CreateChargeInput = {
  amount: number;
  description: string;
  expiresIn: number;
  customer?: CustomerInput;
  tracking?: Record<string, string>;
};

export const PREREQUISITE_MESSAGES = {
  kyc: 'KYC não aprovado',
  acquirer: 'Conta recebedora não configurada',
  pixKey: 'Nenhuma chave PIX ativa',
};

// 403 naming every missing prerequisite (KYC approved, acquirer account, an ACTIVE PIX key). Only asked after the
// guarded insert refused, so the usual path pays no query for it.
async function missingPrerequisites(em: EntityManager, merchantId: string): Promise<ForbiddenError> {
  const [m] = await em.execute<{ kyc_status: string; acquirer_account_id: string | null; has_pix_key: boolean }[]>(
    `select kyc_status, acquirer_account_id,
            exists (select 1 from pix_keys k where k.merchant_id = m.id and k.status = 'ACTIVE') as has_pix_key
       from merchants m where m.id = ?`,
    [merchantId],
  );
  const missing = [
    m.kyc_status !== 'APPROVED' && PREREQUISITE_MESSAGES.kyc,
    !m.acquirer_account_id && PREREQUISITE_MESSAGES.acquirer,
    !m.has_pix_key && PREREQUISITE_MESSAGES.pixKey,
  ].filter(Boolean);
  return new ForbiddenError(missing.join('; ') || 'Pré-requisitos da cobrança mudaram; tente novamente');
}

async function findByIdempotencyKey(em: EntityManager, merchantId: string, key: string, hash: string) {
  const charge = await em.findOne(Charge, { merchant: merchantId, idempotencyKey: key }, { populate: ['customer'] });
  if (charge && charge.requestHash !== hash) throw new ConflictError(IDEMPOTENCY_CONFLICT);
  return charge;
}

const CHARGE_COLUMNS = `id, created_at, updated_at, merchant_id, txid, amount, fee, description, status, expires_in, expires_at,
  customer_id, tracking, location, qr_code, idempotency_key, request_hash`;

// The prerequisites, checked inside the insert itself: no charge can slip in after KYC, the acquirer account or the
// last PIX key went away, whatever the timing.
const ONBOARDED = `exists (select 1 from merchants m where m.id = ? and m.kyc_status = 'APPROVED' and m.acquirer_account_id is not null)
  and exists (select 1 from pix_keys k where k.merchant_id = ? and k.status = 'ACTIVE')`;

type NewCharge = ChargeFields & { merchantId: string; location: string; idempotencyKey: string | null; requestHash: string | null };

/**
 * Inserts the charge (and upserts its customer, reused per merchant by document) in ONE statement guarded by the
 * prerequisites: atomic without an explicit transaction, one round trip on the hottest path of the API.
 * Returns null when a prerequisite is missing (nothing written).
 */
async function insertCharge(em: EntityManager, c: NewCharge, customer?: CustomerInput) {
  const values = [c.id, c.createdAt, c.createdAt, c.merchantId, c.txid, c.amount, c.fee, c.description, 'PENDING', c.expiresIn, c.expiresAt];
  const rest = [c.tracking ? JSON.stringify(c.tracking) : null, c.location, c.qrCode, c.idempotencyKey, c.requestHash];
  const guard = [c.merchantId, c.merchantId];
  if (!customer) {
    const rows = await em.execute<{ id: string }[]>(
      `insert into charges (${CHARGE_COLUMNS}) select ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, ?, ?, ?, ?, ? where ${ONBOARDED} returning id`,
      [...values, ...rest, ...guard],
    );
    return rows.length ? { customer: null } : null;
  }
  const rows = await em.execute<{ id: string; name: string; document: string }[]>(
    `with c as (
       insert into customers (id, created_at, updated_at, merchant_id, name, document, email, phone)
       select ?, now(), now(), ?, ?, ?, ?, ? where ${ONBOARDED}
       on conflict (merchant_id, document) do update set name = excluded.name, email = coalesce(excluded.email, customers.email),
         phone = coalesce(excluded.phone, customers.phone), updated_at = now()
       returning id, name, document)
     , ins as (insert into charges (${CHARGE_COLUMNS}) select ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, c.id, ?, ?, ?, ?, ? from c)
     select id, name, document from c`,
    [newId(), c.merchantId, customer.name, customer.document, customer.email ?? null, customer.phone ?? null, ...guard, ...values, ...rest],
  );
  return rows.length ? { customer: rows[0] } : null;
}

export type CreateChargeResult = { charge: ReturnType<typeof chargeView>; replayed: boolean };

export async function createCharge(deps: Pick<Deps, 'acquirer' | 'config'>, em: EntityManager, merchant: MerchantSnapshot,
  input: CreateChargeInput, idempotencyKey?: string): Promise<CreateChargeResult> {
  const merchantId = merchant.id;
  const hash = idempotencyKey ? requestHash(input) : null;
  // a replay answers with the creation's body (contract), whatever happened to the charge since
  const replay = (c: ICharge) => ({
    charge: chargeView({ ...c, status: 'PENDING', endToEndId: null, paidAt: null, canceledAt: null, refundedAt: null }, c.customer ?? null, { image: true, tracking: true }),
    replayed: true,
  });
  if (idempotencyKey) {
    const existing = await findByIdempotencyKey(em, merchantId, idempotencyKey, hash!);
    if (existing) return replay(existing);
  }
  if (!merchant.acquirerAccountId) throw await missingPrerequisites(em, merchantId);
  const fee = platformFee(input.amount, { bps: merchant.feeBps ?? deps.config.platformFeeBps, fixed: merchant.feeFixed ?? deps.config.platformFeeFixed });
  const id = newId();
  const txid = id.replace(/-/g, ''); // 32 alphanumerics: inside the API Pix 26..35 rule, unique
  const { location } = await deps.acquirer.createCharge({
    txid, amount: input.amount, expiresIn: input.expiresIn, accountId: merchant.acquirerAccountId, description: input.description,
  });
  const createdAt = new Date();
  const charge: ChargeFields = {
    id, txid, amount: input.amount, fee, description: input.description, status: 'PENDING', expiresIn: input.expiresIn, createdAt,
    expiresAt: new Date(createdAt.getTime() + input.expiresIn * 1000), tracking: input.tracking ?? null,
    qrCode: buildDynamicPix({ location, amountCents: input.amount, merchantName: merchant.name, merchantCity: merchant.city }),
  };
  try {
    const inserted = await insertCharge(em, { ...charge, merchantId, location, idempotencyKey: idempotencyKey ?? null, requestHash: hash }, input.customer);
    if (!inserted) throw await missingPrerequisites(em, merchantId);
    return { charge: chargeView(charge, inserted.customer, { image: true, tracking: true }), replayed: false };
  } catch (err) {
    // Lost a race with a concurrent request carrying the same key: answer with the winner's charge.
    if (idempotencyKey && err instanceof UniqueConstraintViolationException) {
      const existing = await findByIdempotencyKey(em.fork(), merchantId, idempotencyKey, hash!);
      if (existing) return replay(existing);
    }
    throw err;
  }
}

export async function getCharge(em: EntityManager, merchantId: string, id: string) {
  const charge = isUuid(id) ? await em.findOne(Charge, { id, merchant: merchantId }, { populate: ['customer'] }) : null;
  if (!charge) throw new NotFoundError('Cobrança não encontrada');
  return charge;
}

type ListRow = ChargeRow & { total: string };

/**
 * Newest first, in one statement: the total from the trigger-kept counters (never a count over the merchant's rows),
 * the page's ids from the (merchant[, status], created_at, id) index, then just those rows and their customers.
 */
export async function listCharges(em: EntityManager, merchantId: string, q: { page: number; limit: number; status?: ChargeStatus }) {
  const offset = (q.page - 1) * q.limit;
  const status = q.status ? ' and status = ?' : '';
  const rows = await em.execute<ListRow[]>(
    `select n.total, ch.id, ch.txid, ch.qr_code, ch.amount, ch.fee, ch.status, ch.description, ch.expires_in, ch.created_at,
            ch.expires_at, ch.end_to_end_id, ch.paid_at, ch.canceled_at, ch.refunded_at,
            cu.id as customer_id, cu.name as customer_name, cu.document as customer_document
       from (select coalesce(sum(count), 0) as total from charge_counts where merchant_id = ?${status}) n
       left join lateral (select id from charges where merchant_id = ?${status} and n.total > ?
                           order by created_at desc, id desc limit ? offset ?) p on true
       left join charges ch on ch.id = p.id
       left join customers cu on cu.id = ch.customer_id
      order by ch.created_at desc, ch.id desc`,
    [merchantId, ...(q.status ? [q.status] : []), merchantId, ...(q.status ? [q.status] : []), offset, q.limit, offset],
  );
  const charges = rows[0].id ? rows.map((r) => chargeRowView(r)) : []; // an empty page is one row with only the total
  return { page: q.page, limit: q.limit, total: Number(rows[0].total), charges };
}
