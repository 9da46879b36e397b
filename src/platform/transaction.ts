// A use case's transaction, run again on a deadlock or serialization failure.
import { setTimeout as sleep } from 'node:timers/promises';
import { DeadlockException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

type TxOptions = NonNullable<Parameters<EntityManager['transactional']>[1]>;

// PostgreSQL gave up on the transaction so another could go on: a deadlock (40P01) or a serialization failure (40001).
// Nothing it did was kept, so running it again is safe. MikroORM reports both as DeadlockException; a statement sent
// through pg-boss' `db` (a job's insert) arrives as the driver's own error, with its code.
export function isTransientConflict(err: unknown): boolean {
  if (err instanceof DeadlockException) return true;
  const code = (err as { code?: unknown } | null)?.code;
  return code === '40P01' || code === '40001';
}

export const TX_ATTEMPTS = 5;

/**
 * A use case's transaction: `em.transactional(work)`, run again (up to TX_ATTEMPTS in all, after a short random pause
 * that grows) when PostgreSQL aborts it as a deadlock or a serialization failure, so those never reach a caller as a
 * failure of its own. `work` must do nothing outside the database that a second run would repeat badly (its jobs are
 * rows of the same transaction). Inside an outer transaction it runs once: only the outermost one may start over.
 * Should every attempt conflict, the error goes on (the API answers 409).
 */
export async function transactional<T>(
  em: EntityManager,
  work: (tx: EntityManager) => Promise<T>,
  options: TxOptions & { attempts?: number } = {},
): Promise<T> {
  const { attempts = TX_ATTEMPTS, ...txOptions } = options;
  if (em.isInTransaction()) return em.transactional(work, txOptions);
  for (let attempt = 1; ; attempt++) {
    try {
      return await em.transactional(work, txOptions);
    } catch (err) {
      if (attempt >= attempts || !isTransientConflict(err)) throw err;
      await sleep(Math.random() * 10 * 2 ** attempt); // jitter: two that collided rarely collide again
    }
  }
}
