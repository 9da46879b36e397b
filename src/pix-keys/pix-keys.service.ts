// The Pix keys' use cases: create, list, delete.
import type { Transition } from '../platform/sql.ts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Services } from '../platform/services.ts';
import { ConflictError, NotFoundError } from '../platform/errors.ts';
import { isUuid } from '../platform/base.entity.ts';
import { recordEvent } from '../webhooks/outbox.ts';
import { PixKey, type IPixKey } from './pix-key.entity.ts';
import { type PixKeyType } from '../pix/keys.ts';
import { transactional } from '../platform/transaction.ts';

export const pixKeyView = (k: IPixKey) => ({
  id: k.id,
  type: k.type,
  key: k.key,
  status: k.status,
  createdAt: k.createdAt.toISOString(),
});

export async function createPixKey(
  { boss }: Pick<Services, 'boss'>,
  em: EntityManager,
  merchantId: string,
  { type, key }: { type: PixKeyType; key: string },
) {
  return transactional(em, async (tx) => {
    const existing = await tx.findOne(PixKey, { merchant: merchantId, type, key, status: 'ACTIVE' });
    if (existing) throw new ConflictError('Chave PIX já cadastrada', 'pix_key_taken');
    const pixKey = tx.create(PixKey, { merchant: merchantId, type, key });
    // data: the key as the API shows it (ACTIVE)
    await recordEvent(tx, boss, merchantId, 'pixkey.updated', pixKeyView(pixKey));
    return pixKeyView(pixKey);
  });
}

export async function listPixKeys(em: EntityManager, merchantId: string) {
  const keys = await em.find(PixKey, { merchant: merchantId }, { orderBy: { createdAt: 'desc', id: 'desc' } });
  return keys.map(pixKeyView);
}

// Every status change of a PIX key: deleting keeps the row (INACTIVE), so charges created with it stay explainable.
export const PIX_KEY_TRANSITIONS = {
  deactivate: { from: ['ACTIVE'], to: 'INACTIVE', event: 'pixkey.updated' },
} as const satisfies Record<string, Transition<'ACTIVE' | 'INACTIVE'>>;

// Deleting keeps the row (INACTIVE): charges created with it stay explainable.
export async function deletePixKey(
  { boss }: Pick<Services, 'boss'>,
  em: EntityManager,
  merchantId: string,
  id: string,
) {
  await transactional(em, async (tx) => {
    const pixKey = isUuid(id) ? await tx.findOne(PixKey, { id, merchant: merchantId }) : null;
    if (!pixKey) throw new NotFoundError('Chave PIX não encontrada');
    const t = PIX_KEY_TRANSITIONS.deactivate;
    if (!(t.from as readonly string[]).includes(pixKey.status)) return; // already INACTIVE
    pixKey.status = t.to;
    await recordEvent(tx, boss, merchantId, t.event, pixKeyView(pixKey)); // now INACTIVE
  });
}
