// The stream's sequencer: gives committed events their position (event_stream.seq).
import type { PgPool } from '../platform/pg.ts';
import { NOTIFY_SEQUENCED, SEQUENCE, TRY_SEQUENCER_LOCK } from './stream.sql.ts';

export const SEQUENCE_BATCH = 1000;

/**
 * Gives committed events their position in the stream (event_stream.seq), the cursor every stream reads by.
 *
 * Ids cannot be the cursor: concurrent transactions commit out of id order, so a reader that has passed id 42 would
 * never see id 41 committing a moment later. Positions are given only after commit, by one transaction at a time
 * (the advisory lock, held until it commits): a pass sees only committed events (the pending rows of transactions
 * still open are invisible to it, and get a later position from a later pass), takes its positions from a sequence
 * after the previous pass committed, and becomes visible before the lock goes to the next pass. So positions become
 * visible in increasing order: whatever a reader has seen up to position N, every position it will ever see again is
 * greater than N, and `seq > N` resumes with no gap, whatever restarted meanwhile (the positions are rows).
 *
 * Returns how many events got a position, or null when another process holds the lock (it is giving them).
 */
export async function sequencePass(db: PgPool): Promise<number | null> {
  return db.tx(async ({ query }) => {
    const [{ locked }] = await query<{ locked: boolean }>(TRY_SEQUENCER_LOCK);
    if (!locked) return null;
    const rows = await query(SEQUENCE, [SEQUENCE_BATCH]);
    if (rows.length) await query(NOTIFY_SEQUENCED);
    return rows.length;
  });
}
