import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Deps } from '../deps.ts';
import { ConflictError, ForbiddenError, NotFoundError } from '../platform/errors.ts';
import { isUuid, newId } from '../platform/base.entity.ts';
import { IDEMPOTENCY_CONFLICT, requestHash } from '../platform/idempotency.ts';
import { Merchant } from '../merchants/merchant.entity.ts';
import { effectiveFee, platformFee } from '../merchants/merchants.service.ts';
import { hasActivePixKey } from '../pix-keys/pix-keys.service.ts';
import { Charge, type ChargeStatus, type ICharge } from './charge.entity.ts';
import { Customer } from './customer.entity.ts';
import { buildDynamicPix } from './brcode.ts';
import { chargeView } from './charge.view.ts';

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

// 403 naming every missing prerequisite (KYC approved, acquirer account, an ACTIVE PIX key).
async function onboardedMerchant(em: EntityManager, merchantId: string) {
  const [merchant, pixKey] = await Promise.all([em.findOneOrFail(Merchant, { id: merchantId }), hasActivePixKey(em.fork(), merchantId)]);
  const missing = [
    merchant.kycStatus !== 'APPROVED' && PREREQUISITE_MESSAGES.kyc,
    !merchant.acquirerAccountId && PREREQUISITE_MESSAGES.acquirer,
    !pixKey && PREREQUISITE_MESSAGES.pixKey,
  ].filter(Boolean);
  if (missing.length) throw new ForbiddenError(missing.join('; '));
  return merchant;
}

async function findByIdempotencyKey(em: EntityManager, merchantId: string, key: string, hash: string) {
  const charge = await em.findOne(Charge, { merchant: merchantId, idempotencyKey: key }, { populate: ['customer'] });
  if (charge && charge.requestHash !== hash) throw new ConflictError(IDEMPOTENCY_CONFLICT);
  return charge;
}

// Customers are reused per merchant by document; the latest name/contact wins.
async function upsertCustomer(em: EntityManager, merchantId: string, c: CustomerInput) {
  const [row] = await em.execute<{ id: string; name: string; document: string }[]>(
    `insert into customers (id, created_at, updated_at, merchant_id, name, document, email, phone) values (?, now(), now(), ?, ?, ?, ?, ?)
     on conflict (merchant_id, document) do update set name = excluded.name, email = coalesce(excluded.email, customers.email),
       phone = coalesce(excluded.phone, customers.phone), updated_at = now()
     returning id, name, document`,
    [newId(), merchantId, c.name, c.document, c.email ?? null, c.phone ?? null],
  );
  return row;
}

export type CreateChargeResult = { charge: ReturnType<typeof chargeView>; replayed: boolean };

export async function createCharge(deps: Pick<Deps, 'acquirer' | 'config'>, em: EntityManager, merchantId: string,
  input: CreateChargeInput, idempotencyKey?: string): Promise<CreateChargeResult> {
  const hash = idempotencyKey ? requestHash(input) : null;
  const view = (c: ICharge, customer: { id: string; name: string; document: string } | null) =>
    chargeView(c, customer, { image: true, tracking: true });
  if (idempotencyKey) {
    const existing = await findByIdempotencyKey(em, merchantId, idempotencyKey, hash!);
    if (existing) return { charge: view(existing, existing.customer ?? null), replayed: true };
  }
  const merchant = await onboardedMerchant(em, merchantId);
  const fee = platformFee(input.amount, effectiveFee(merchant, { bps: deps.config.platformFeeBps, fixed: deps.config.platformFeeFixed }));
  const txid = newId().replace(/-/g, ''); // 32 alphanumerics: inside the API Pix 26..35 rule, unique
  const { location } = await deps.acquirer.createCharge({
    txid, amount: input.amount, expiresIn: input.expiresIn, accountId: merchant.acquirerAccountId!, description: input.description,
  });
  const qrCode = buildDynamicPix({ location, amountCents: input.amount, merchantName: merchant.name, merchantCity: merchant.city });
  try {
    return await em.transactional(async (tx) => {
      const customer = input.customer ? await upsertCustomer(tx, merchantId, input.customer) : null;
      const charge = tx.create(Charge, {
        merchant: merchantId, txid, amount: input.amount, fee, description: input.description, expiresIn: input.expiresIn,
        expiresAt: new Date(Date.now() + input.expiresIn * 1000), customer: customer?.id ?? null, tracking: input.tracking ?? null,
        location, qrCode, idempotencyKey: idempotencyKey ?? null, requestHash: hash,
      });
      await tx.flush();
      return { charge: view(charge, customer), replayed: false };
    });
  } catch (err) {
    // Lost a race with a concurrent request carrying the same key: answer with the winner's charge.
    if (idempotencyKey && err instanceof UniqueConstraintViolationException) {
      const existing = await findByIdempotencyKey(em.fork(), merchantId, idempotencyKey, hash!);
      if (existing) return { charge: view(existing, existing.customer ?? null), replayed: true };
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
