import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deps } from '../deps.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../platform/errors.ts';
import { isUuid, newId } from '../platform/base.entity.ts';
import { IDEMPOTENCY_CONFLICT, requestHash } from '../platform/idempotency.ts';
import { platformFee } from '../merchants/merchants.service.ts';
import { Charge, type ChargeStatus, type ICharge } from './charge.entity.ts';
import { buildDynamicPix } from './brcode.ts';
import { chargeView, type ChargeFields } from './charge.view.ts';

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

type MerchantRow = {
  name: string; city: string; kyc_status: string; acquirer_account_id: string | null;
  fee_bps: number | null; fee_fixed: number | null; has_pix_key: boolean;
};

// 403 naming every missing prerequisite (KYC approved, acquirer account, an ACTIVE PIX key), in one query.
async function onboardedMerchant(em: EntityManager, merchantId: string): Promise<MerchantRow> {
  const [m] = await em.execute<MerchantRow[]>(
    `select name, city, kyc_status, acquirer_account_id, fee_bps, fee_fixed,
            exists (select 1 from pix_keys k where k.merchant_id = m.id and k.status = 'ACTIVE') as has_pix_key
       from merchants m where m.id = ?`,
    [merchantId],
  );
  const missing = [
    m.kyc_status !== 'APPROVED' && PREREQUISITE_MESSAGES.kyc,
    !m.acquirer_account_id && PREREQUISITE_MESSAGES.acquirer,
    !m.has_pix_key && PREREQUISITE_MESSAGES.pixKey,
  ].filter(Boolean);
  if (missing.length) throw new ForbiddenError(missing.join('; '));
  return m;
}

async function findByIdempotencyKey(em: EntityManager, merchantId: string, key: string, hash: string) {
  const charge = await em.findOne(Charge, { merchant: merchantId, idempotencyKey: key }, { populate: ['customer'] });
  if (charge && charge.requestHash !== hash) throw new ConflictError(IDEMPOTENCY_CONFLICT);
  return charge;
}

const CHARGE_COLUMNS = `id, created_at, updated_at, merchant_id, txid, amount, fee, description, status, expires_in, expires_at,
  customer_id, tracking, location, qr_code, idempotency_key, request_hash`;

/**
 * Inserts the charge (and upserts its customer, reused per merchant by document) in ONE statement: atomic without
 * an explicit transaction, and one round trip on the hottest path of the API.
 */
async function insertCharge(em: EntityManager, c: ChargeFields & { merchantId: string; location: string; idempotencyKey: string | null; requestHash: string | null },
  customer?: CustomerInput) {
  const values = [c.id, c.createdAt, c.createdAt, c.merchantId, c.txid, c.amount, c.fee, c.description, 'PENDING', c.expiresIn, c.expiresAt];
  const rest = [c.tracking ? JSON.stringify(c.tracking) : null, c.location, c.qrCode, c.idempotencyKey, c.requestHash];
  if (!customer) {
    await em.execute(`insert into charges (${CHARGE_COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, null, ?, ?, ?, ?, ?)`, [...values, ...rest]);
    return null;
  }
  const [row] = await em.execute<{ id: string; name: string; document: string }[]>(
    `with c as (
       insert into customers (id, created_at, updated_at, merchant_id, name, document, email, phone) values (?, now(), now(), ?, ?, ?, ?, ?)
       on conflict (merchant_id, document) do update set name = excluded.name, email = coalesce(excluded.email, customers.email),
         phone = coalesce(excluded.phone, customers.phone), updated_at = now()
       returning id, name, document)
     , ins as (insert into charges (${CHARGE_COLUMNS}) select ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, c.id, ?, ?, ?, ?, ? from c)
     select id, name, document from c`,
    [newId(), c.merchantId, customer.name, customer.document, customer.email ?? null, customer.phone ?? null, ...values, ...rest],
  );
  return row;
}

export type CreateChargeResult = { charge: ReturnType<typeof chargeView>; replayed: boolean };

export async function createCharge(deps: Pick<Deps, 'acquirer' | 'config'>, em: EntityManager, merchantId: string,
  input: CreateChargeInput, idempotencyKey?: string): Promise<CreateChargeResult> {
  const hash = idempotencyKey ? requestHash(input) : null;
  const replay = (c: ICharge) => ({ charge: chargeView(c, c.customer ?? null, { image: true, tracking: true }), replayed: true });
  if (idempotencyKey) {
    const existing = await findByIdempotencyKey(em, merchantId, idempotencyKey, hash!);
    if (existing) return replay(existing);
  }
  const merchant = await onboardedMerchant(em, merchantId);
  const fee = platformFee(input.amount, {
    bps: merchant.fee_bps ?? deps.config.platformFeeBps, fixed: merchant.fee_fixed ?? deps.config.platformFeeFixed,
  });
  const id = newId();
  const txid = id.replace(/-/g, ''); // 32 alphanumerics: inside the API Pix 26..35 rule, unique
  const { location } = await deps.acquirer.createCharge({
    txid, amount: input.amount, expiresIn: input.expiresIn, accountId: merchant.acquirer_account_id!, description: input.description,
  });
  const createdAt = new Date();
  const charge: ChargeFields = {
    id, txid, amount: input.amount, fee, description: input.description, status: 'PENDING', expiresIn: input.expiresIn, createdAt,
    expiresAt: new Date(createdAt.getTime() + input.expiresIn * 1000), tracking: input.tracking ?? null,
    qrCode: buildDynamicPix({ location, amountCents: input.amount, merchantName: merchant.name, merchantCity: merchant.city }),
  };
  try {
    const customer = await insertCharge(em, { ...charge, merchantId, location, idempotencyKey: idempotencyKey ?? null, requestHash: hash }, input.customer);
    return { charge: chargeView(charge, customer, { image: true, tracking: true }), replayed: false };
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

export async function listCharges(em: EntityManager, merchantId: string, q: { page: number; limit: number; status?: ChargeStatus }) {
  const where = { merchant: merchantId, ...(q.status ? { status: q.status } : {}) };
  const [charges, total] = await em.findAndCount(Charge, where, {
    orderBy: { createdAt: 'desc', id: 'desc' }, limit: q.limit, offset: (q.page - 1) * q.limit, populate: ['customer'],
  });
  return { page: q.page, limit: q.limit, total, charges: charges.map((c) => chargeView(c, c.customer ?? null)) };
}
