import { randomUUID } from 'node:crypto';
import type { Client } from 'openapi-fetch';
import type { paths } from './openapi.ts';
import { withRetries, type Repeatable, type RetryOptions } from './retry.ts';
import { streamEvents, type StreamEventsOptions } from './stream.ts';

// The JSON body and the query of an operation, as docs/openapi.yaml types them.
type Body<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;
type Query<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  parameters: { query?: infer Q };
}
  ? NonNullable<Q>
  : never;

// Every item of a page-numbered list, page after page (100 a page unless `limit` says), until a short page. A page
// is read when the loop asks for it: what is created meanwhile can shift an item across a page boundary (seen twice,
// or not at all); use it for exports and reports, not as a queue.
async function* everyItem<Q extends { page?: number; limit?: number }, P, T>(
  list: (query: Q) => Promise<P>,
  items: (page: P) => T[],
  query: Q,
): AsyncGenerator<T> {
  const limit = query.limit ?? 100;
  for (let page = query.page ?? 1; ; page++) {
    const got = items(await list({ ...query, page, limit }));
    yield* got;
    if (got.length < limit) return;
  }
}

// Per call: `signal` to abort it (its retries included).
export type CallOptions = { signal?: AbortSignal };
// Per creation the API deduplicates: `idempotencyKey`, 1..64 characters (a new UUID when absent), sent on every retry.
export type CreateOptions = CallOptions & { idempotencyKey?: string };

// The resource helpers over a typed client: each returns the resource (or the page of a list) and throws PixApiError
// for anything but a 2xx. Creations (webhooks and recurring-charge retries included) send an x-idempotency-key and
// are retried like GETs; the other writes are retried only on 429.
export function resources(
  client: Client<paths>,
  stream: Pick<StreamEventsOptions, 'baseUrl' | 'token'>,
  retry: RetryOptions,
) {
  const run = <D>(repeatable: Repeatable, attempt: () => Promise<{ data?: D; error?: unknown; response: Response }>) =>
    withRetries(attempt, repeatable, retry);
  // one key for every attempt of the call
  const key = (o?: CreateOptions) => ({ 'x-idempotency-key': o?.idempotencyKey ?? randomUUID() });
  const read = 'all';
  const created = 'all'; // with its key
  const write = 'rate-limited-only';

  // the lists, also read page after page by `all`
  const listCharges = (query: Query<'/v1/charges', 'get'> = {}, o?: CallOptions) =>
    run(read, () => client.GET('/v1/charges', { params: { query }, signal: o?.signal }));
  const listWithdrawals = (query: Query<'/v1/merchants/me/withdrawals', 'get'> = {}, o?: CallOptions) =>
    run(read, () => client.GET('/v1/merchants/me/withdrawals', { params: { query }, signal: o?.signal }));
  const listEvents = (query: Query<'/v1/events', 'get'> = {}, o?: CallOptions) =>
    run(read, () => client.GET('/v1/events', { params: { query }, signal: o?.signal }));
  const listMandates = (query: Query<'/v1/mandates', 'get'> = {}, o?: CallOptions) =>
    run(read, () => client.GET('/v1/mandates', { params: { query }, signal: o?.signal }));
  const listRecurringCharges = (query: Query<'/v1/recurring-charges', 'get'> = {}, o?: CallOptions) =>
    run(read, () => client.GET('/v1/recurring-charges', { params: { query }, signal: o?.signal }));

  return {
    charges: {
      async create(body: Body<'/v1/charges', 'post'>, o?: CreateOptions) {
        const header = key(o);
        return (await run(created, () => client.POST('/v1/charges', { body, params: { header }, signal: o?.signal })))
          .charge;
      },
      async get(id: string, o?: CallOptions) {
        const params = { path: { id } };
        return (await run(read, () => client.GET('/v1/charges/{id}', { params, signal: o?.signal }))).charge;
      },
      list: listCharges,
      // every charge (of `status`), across pages: `for await (const charge of pix.charges.all())`
      all(query: Omit<Query<'/v1/charges', 'get'>, 'page'> = {}, o?: CallOptions) {
        return everyItem(
          (q) => listCharges(q, o),
          (p) => p.charges,
          query,
        );
      },
      // what is left to refund when `body.amount` is absent; the refund is PROCESSING until the acquirer confirms
      async refund(id: string, body: Body<'/v1/charges/{id}/refunds', 'post'> = {}, o?: CreateOptions) {
        const params = { path: { id }, header: key(o) };
        return (await run(created, () => client.POST('/v1/charges/{id}/refunds', { params, body, signal: o?.signal })))
          .refund;
      },
    },
    withdrawals: {
      async create(body: Body<'/v1/merchants/me/withdrawals', 'post'>, o?: CreateOptions) {
        const params = { header: key(o) };
        const post = () => client.POST('/v1/merchants/me/withdrawals', { params, body, signal: o?.signal });
        return (await run(created, post)).withdrawal;
      },
      list: listWithdrawals,
      all(query: Omit<Query<'/v1/merchants/me/withdrawals', 'get'>, 'page'> = {}, o?: CallOptions) {
        return everyItem(
          (q) => listWithdrawals(q, o),
          (p) => p.withdrawals,
          query,
        );
      },
    },
    webhooks: {
      // deduplicated by its key: a retry after a lost answer replays the webhook (with its secret), never a second one
      async create(body: Body<'/v1/webhooks/merchant', 'post'>, o?: CreateOptions) {
        const params = { header: key(o) };
        const post = () => client.POST('/v1/webhooks/merchant', { params, body, signal: o?.signal });
        return (await run(created, post)).webhook;
      },
      async list(o?: CallOptions) {
        return (await run(read, () => client.GET('/v1/webhooks/merchant', { signal: o?.signal }))).webhooks;
      },
      async update(id: string, body: Body<'/v1/webhooks/merchant/{id}', 'patch'>, o?: CallOptions) {
        const params = { path: { id } };
        return (await run(write, () => client.PATCH('/v1/webhooks/merchant/{id}', { params, body, signal: o?.signal })))
          .webhook;
      },
      async remove(id: string, o?: CallOptions): Promise<void> {
        const params = { path: { id } };
        await run(write, () => client.DELETE('/v1/webhooks/merchant/{id}', { params, signal: o?.signal }));
      },
      // the catalogue's example of `event`, delivered as a real delivery would be: its delivery log
      async test(id: string, body: Body<'/v1/webhooks/merchant/{id}/test', 'post'>, o?: CallOptions) {
        const params = { path: { id } };
        const post = () => client.POST('/v1/webhooks/merchant/{id}/test', { params, body, signal: o?.signal });
        return (await run(write, post)).delivery;
      },
      async resend(id: string, deliveryId: string, o?: CallOptions) {
        const params = { path: { id, deliveryId } };
        const post = () =>
          client.POST('/v1/webhooks/merchant/{id}/deliveries/{deliveryId}/resend', { params, signal: o?.signal });
        return (await run(write, post)).delivery;
      },
      // the webhook with its new `secret`; the old one still signs until `previousSecretExpiresAt`
      async rotateSecret(
        id: string,
        body: Body<'/v1/webhooks/merchant/{id}/secret/rotate', 'post'> = {},
        o?: CallOptions,
      ) {
        const params = { path: { id } };
        const post = () => client.POST('/v1/webhooks/merchant/{id}/secret/rotate', { params, body, signal: o?.signal });
        return (await run(write, post)).webhook;
      },
    },
    events: {
      list: listEvents,
      all(query: Omit<Query<'/v1/events', 'get'>, 'page'> = {}, o?: CallOptions) {
        return everyItem(
          (q) => listEvents(q, o),
          (p) => p.events,
          query,
        );
      },
      // GET /v1/events/stream as an async iterable, reconnecting by itself (see streamEvents)
      stream: (opts: Omit<StreamEventsOptions, 'baseUrl' | 'token'> = {}) => streamEvents({ ...stream, ...opts }),
    },
    mandates: {
      async create(body: Body<'/v1/mandates', 'post'>, o?: CreateOptions) {
        const params = { header: key(o) };
        return (await run(created, () => client.POST('/v1/mandates', { params, body, signal: o?.signal }))).mandate;
      },
      async get(id: string, o?: CallOptions) {
        const params = { path: { id } };
        return (await run(read, () => client.GET('/v1/mandates/{id}', { params, signal: o?.signal }))).mandate;
      },
      list: listMandates,
      all(query: Omit<Query<'/v1/mandates', 'get'>, 'page'> = {}, o?: CallOptions) {
        return everyItem(
          (q) => listMandates(q, o),
          (p) => p.mandates,
          query,
        );
      },
      async cancel(id: string, { reason }: { reason?: string | null } = {}, o?: CallOptions) {
        const params = { path: { id } };
        const body = { status: 'CANCELED' as const, reason };
        return (await run(write, () => client.PATCH('/v1/mandates/{id}', { params, body, signal: o?.signal }))).mandate;
      },
    },
    recurringCharges: {
      // one cycle's charge of an approved mandate
      async create(mandateId: string, body: Body<'/v1/mandates/{id}/charges', 'post'>, o?: CreateOptions) {
        const params = { path: { id: mandateId }, header: key(o) };
        const post = () => client.POST('/v1/mandates/{id}/charges', { params, body, signal: o?.signal });
        return (await run(created, post)).recurringCharge;
      },
      async get(id: string, o?: CallOptions) {
        const params = { path: { id } };
        return (await run(read, () => client.GET('/v1/recurring-charges/{id}', { params, signal: o?.signal })))
          .recurringCharge;
      },
      list: listRecurringCharges,
      all(query: Omit<Query<'/v1/recurring-charges', 'get'>, 'page'> = {}, o?: CallOptions) {
        return everyItem(
          (q) => listRecurringCharges(q, o),
          (p) => p.recurringCharges,
          query,
        );
      },
      // a new attempt on `date`, sent with a key and retried like the creations. The API accepts the key without
      // storing it, but never schedules a second attempt: a repeat of one that went through is 409
      // retry_already_scheduled (PixApiError), the attempt being SCHEDULED.
      async retry(id: string, body: Body<'/v1/recurring-charges/{id}/retries', 'post'>, o?: CreateOptions) {
        const params = { path: { id } };
        const headers = key(o);
        const post = () =>
          client.POST('/v1/recurring-charges/{id}/retries', { params, body, headers, signal: o?.signal });
        return (await run(created, post)).recurringCharge;
      },
    },
  };
}

export type PixResources = ReturnType<typeof resources>;
