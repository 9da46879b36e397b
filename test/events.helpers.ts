// Helpers shared by the events test files (not a test file itself): events recorded the way the business code records
// them (recordEvents, in a transaction of their own), with bodies that match the documented resources.
import { newId } from '../src/platform/base.entity.ts';
import { recordEvents } from '../src/webhooks/outbox.ts';
import type { EventType } from '../src/webhooks/catalog.ts';
import type { IEvent } from '../src/webhooks/event.entity.ts';
import type { TestApp } from './support/app.ts';

export const pixKeyData = (id = newId(), status: 'ACTIVE' | 'INACTIVE' = 'ACTIVE') => ({
  id,
  type: 'EMAIL',
  key: `k-${id.slice(-12)}@example.com`,
  status,
  createdAt: new Date().toISOString(),
});

export const withdrawalData = (id = newId(), status: 'COMPLETED' | 'FAILED' = 'COMPLETED') => {
  const now = new Date().toISOString();
  return {
    id,
    amount: 1000,
    description: null,
    status,
    batchId: 'lote-1',
    pixKey: 'destino@example.com',
    pixKeyType: 'EMAIL',
    createdAt: now,
    updatedAt: now,
    completedAt: status === 'COMPLETED' ? now : null,
    failedAt: status === 'FAILED' ? now : null,
    returnedAt: null,
    failureReason: status === 'FAILED' ? 'Transferência recusada pelo adquirente' : null,
  };
};

type NewEvent = { type: EventType; data: Record<string, unknown> };

// Events of one merchant recorded and committed in one transaction.
export async function record(app: TestApp, merchantId: string, events: NewEvent[]): Promise<IEvent[]> {
  return app.orm.em.fork().transactional((tx) =>
    recordEvents(
      tx,
      app.boss,
      events.map((e) => ({ merchantId, ...e })),
    ),
  );
}

export const recordPixKeyEvent = async (app: TestApp, merchantId: string) =>
  (await record(app, merchantId, [{ type: 'pixkey.updated', data: pixKeyData() }]))[0];

// An event recorded in a transaction left open: its id is taken now, it commits when `commit` is called.
export async function openTransaction(app: TestApp, merchantId: string) {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let recorded!: (e: IEvent) => void;
  const created = new Promise<IEvent>((r) => (recorded = r));
  const done = app.orm.em.fork().transactional(async (tx) => {
    const [e] = await recordEvents(tx, app.boss, [{ merchantId, type: 'pixkey.updated', data: pixKeyData() }]);
    recorded(e);
    await gate;
  });
  const event = await Promise.race([created, done.then(() => Promise.reject(new Error('committed early')))]);
  return {
    event,
    commit: async () => {
      release();
      await done;
    },
  };
}

export async function sql<T = any>(app: TestApp, query: string, params: unknown[] = []): Promise<T[]> {
  return app.orm.em.fork().execute<T[]>(query, params);
}
