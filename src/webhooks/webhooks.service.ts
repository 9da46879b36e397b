// The webhooks' use cases: create, update, delete, list, rotate a secret.
import { ormSql } from '../platform/sql.ts';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { BusinessRuleError, ConflictError, NotFoundError } from '../platform/errors.ts';
import { createOnce } from '../platform/idempotency.ts';
import { isUuid, newId } from '../platform/base.entity.ts';
import { open, seal, type Keyring } from '../platform/secrets.ts';
import { Webhook, type IWebhook } from './webhook.entity.ts';
import { generateSecret, maskSecret } from './signing.ts';
import { LAST_LOGS, LOCK_MERCHANT, type LogRow } from './webhooks.sql.ts';
import { logView } from './webhooks.view.ts';
import { transactional } from '../platform/transaction.ts';
import { headersOf } from './webhook-headers.ts';

export const MAX_WEBHOOKS_PER_MERCHANT = 20;
export const LOGS_PER_WEBHOOK = 20;

type Settings = { headers?: Record<string, string> | null; rateLimit?: number | null };
export type CreateWebhookInput = { url: string; name?: string | null; events?: string[] } & Settings;
export type UpdateWebhookInput = {
  url?: string;
  name?: string | null;
  events?: string[];
  status?: 'ACTIVE' | 'INACTIVE';
} & Settings;

const iso = (d: Date | string) => new Date(d).toISOString();

// Duplicates collapse; [] (or absent on creation) means every event.
const eventsOf = (events: string[] | undefined): string[] | undefined => (events ? [...new Set(events)] : undefined);
// An empty or blank name is no name.
const nameOf = (name: string | null | undefined): string | null | undefined =>
  name === undefined ? undefined : name?.trim() || null;

const baseView = (w: IWebhook) => ({ id: w.id, name: w.name ?? null, url: w.url, events: w.events as string[] });
// The self-service settings and the automatic disabling (contract), in every response that describes a webhook.
const settingsView = (w: IWebhook) => ({
  headers: w.headers ?? null,
  rateLimit: w.rateLimit ?? null,
  disabledReason: w.disabledReason ?? null,
  disabledAt: w.disabledAt ? iso(w.disabledAt) : null,
});

// Unknown, malformed, deleted and other merchants' ids all look the same: 404, never revealing that the webhook exists.
export async function findOwned(em: EntityManager, merchantId: string, id: string, lock = false): Promise<IWebhook> {
  const webhook = isUuid(id)
    ? await em.findOne(
        Webhook,
        { id, merchant: merchantId, deletedAt: null },
        lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
      )
    : null;
  if (!webhook) throw new NotFoundError('Webhook não encontrado');
  return webhook;
}

const IDEMPOTENCY_KEY_OF_DELETED = 'Chave de idempotência já usada por um webhook excluído';

const createdView = (w: IWebhook, secret: string) => ({
  ...baseView(w),
  secret,
  status: w.status,
  ...settingsView(w),
  createdAt: iso(w.createdAt),
});

/**
 * The only responses that carry the full secret (with rotateSecret's); the row holds it sealed (bound to the
 * webhook's id). Under an optional x-idempotency-key (contract "Developer experience"), a repeat with the same body
 * replays the creation: the webhook as it is now, with its current secret (200 + idempotent-replayed); with another
 * body it is 409 idempotency_conflict. The key of a webhook since deleted is spent: 409 idempotency_conflict, never a
 * second webhook and never a replay of one that no longer exists.
 */
export async function createWebhook(
  em: EntityManager,
  secrets: Keyring,
  merchantId: string,
  input: CreateWebhookInput,
  idempotencyKey?: string,
): Promise<{ webhook: ReturnType<typeof createdView>; replayed: boolean }> {
  const fields = {
    url: input.url,
    name: nameOf(input.name) ?? null,
    events: eventsOf(input.events) ?? [],
    headers: headersOf(input.headers) ?? null,
    rateLimit: input.rateLimit ?? null,
  };
  return transactional(em, async (tx) => {
    // Serialise creations of one merchant so two concurrent requests cannot both pass the limit, nor both miss the
    // earlier creation with their key (the unique (merchant, key) index stays the last word).
    await ormSql(tx).query(LOCK_MERCHANT, [merchantId]);
    const { result, replayed } = await createOnce(idempotencyKey, fields, {
      find: () => tx.findOne(Webhook, { merchant: merchantId, idempotencyKey }),
      replay: (prior) => {
        if (prior.deletedAt) throw new ConflictError(IDEMPOTENCY_KEY_OF_DELETED, 'idempotency_conflict');
        return createdView(prior, open(secrets, prior.secret, prior.id));
      },
      create: async (requestHash) => {
        // A replay never counts against the limit: only a creation is checked.
        const count = await tx.count(Webhook, { merchant: merchantId, deletedAt: null });
        if (count >= MAX_WEBHOOKS_PER_MERCHANT)
          throw new BusinessRuleError(
            `Limite de ${MAX_WEBHOOKS_PER_MERCHANT} webhooks atingido`,
            'webhook_limit_reached',
          );
        const id = newId();
        const secret = generateSecret();
        const webhook = tx.create(Webhook, {
          id,
          merchant: merchantId,
          ...fields,
          secret: seal(secrets, secret, id),
          status: 'ACTIVE',
          idempotencyKey: idempotencyKey ?? null,
          requestHash,
        });
        await tx.flush();
        return createdView(webhook, secret);
      },
    });
    return { webhook: result, replayed };
  });
}

// Two queries whatever the number of webhooks: the webhooks, then the last 20 logs of each through LATERAL
// (served by the (webhook_id, created_at desc, id desc) index).
export async function listWebhooks(em: EntityManager, secrets: Keyring, merchantId: string) {
  const webhooks = await em.find(
    Webhook,
    { merchant: merchantId, deletedAt: null },
    { orderBy: { createdAt: 'desc', id: 'desc' } },
  );
  if (webhooks.length === 0) return [];
  const logs = await ormSql(em).query<LogRow>(LAST_LOGS, [webhooks.map((w) => w.id), LOGS_PER_WEBHOOK]);
  const byWebhook = new Map<string, ReturnType<typeof logView>[]>();
  for (const row of logs) {
    const list = byWebhook.get(row.webhook_id) ?? [];
    list.push(logView(row));
    byWebhook.set(row.webhook_id, list);
  }
  return webhooks.map((w) => ({
    ...baseView(w),
    secret: maskSecret(open(secrets, w.secret, w.id)),
    status: w.status,
    ...settingsView(w),
    createdAt: iso(w.createdAt),
    updatedAt: iso(w.updatedAt),
    logs: byWebhook.get(w.id) ?? [],
  }));
}

// Only the supplied fields change; the secret is never returned again.
export async function updateWebhook(em: EntityManager, merchantId: string, id: string, input: UpdateWebhookInput) {
  const webhook = await findOwned(em, merchantId, id);
  if (input.url !== undefined) webhook.url = input.url;
  if (input.name !== undefined) webhook.name = nameOf(input.name) ?? null;
  if (input.events !== undefined) webhook.events = eventsOf(input.events) ?? [];
  if (input.headers !== undefined) webhook.headers = headersOf(input.headers) ?? null;
  if (input.rateLimit !== undefined) webhook.rateLimit = input.rateLimit;
  if (input.status !== undefined) {
    webhook.status = input.status;
    // Re-enabled by the merchant: the automatic disabling is over and its failure streak starts again.
    if (input.status === 'ACTIVE') {
      webhook.disabledReason = null;
      webhook.disabledAt = null;
      webhook.failures = [];
    }
  }
  await em.flush();
  return updatedView(webhook);
}

const updatedView = (webhook: IWebhook) => ({
  ...baseView(webhook),
  status: webhook.status,
  ...settingsView(webhook),
  createdAt: iso(webhook.createdAt),
  updatedAt: iso(webhook.updatedAt),
});

export const MAX_OVERLAP_SECONDS = 86_400;

/**
 * A new secret, returned in full this once. Until the overlap ends the old one keeps signing too (every delivery
 * carries `v1,<new> v1,<old>`), so receivers switch secrets without rejecting a delivery; a rotation during an
 * overlap drops the oldest. Under the row lock, so two concurrent rotations keep one consistent pair.
 */
export async function rotateSecret(
  em: EntityManager,
  secrets: Keyring,
  merchantId: string,
  id: string,
  overlapSeconds: number,
) {
  return transactional(em, async (tx) => {
    const webhook = await findOwned(tx, merchantId, id, true);
    const secret = generateSecret();
    const until = new Date(Date.now() + overlapSeconds * 1000);
    webhook.previousSecret = overlapSeconds > 0 ? webhook.secret : null; // sealed as it is: bound to the same id
    webhook.previousSecretUntil = overlapSeconds > 0 ? until : null;
    webhook.secret = seal(secrets, secret, webhook.id);
    await tx.flush();
    return {
      ...updatedView(webhook),
      secret,
      previousSecretExpiresAt: overlapSeconds > 0 ? iso(until) : null,
    };
  });
}

// Soft delete: the logs stay auditable; the daemon cancels any delivery still queued for it.
export async function deleteWebhook(em: EntityManager, merchantId: string, id: string): Promise<void> {
  const webhook = await findOwned(em, merchantId, id);
  webhook.deletedAt = new Date();
  await em.flush();
}
