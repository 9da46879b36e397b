// Operator commands of webhook secrets: re-encrypted under another key.
import { ormSql } from '../platform/sql.ts';
import { OpsError, OpsFailure, OpsUsageError, type Command } from '../platform/ops.ts';
import { open, seal, SecretKeyError } from '../platform/secrets.ts';
import { COUNT_TO_RESEAL, RESEAL_SECRETS, SECRETS_BY_KEY, SECRETS_TO_RESEAL } from './webhooks.sql.ts';
import { transactional } from '../platform/transaction.ts';

const DEFAULT_BATCH = 500;

export const secretCommands: Command[] = [
  {
    name: 'secrets:rotate-key',
    summary: 're-encrypts every webhook secret not under the first key of SECRETS_KEYS (plaintext ones too); resumable',
    flags: {
      batch: { type: 'string', description: `rows per transaction (default ${DEFAULT_BATCH})` },
      'dry-run': { type: 'boolean', description: 'count what would be re-encrypted, change nothing' },
    },
    async run({ em, config, progress }, flags) {
      const ring = config.secrets;
      if (!ring.current) throw new OpsError('SECRETS_KEYS is required: the keys to re-encrypt under (first) and from');
      const batch = flags.batch === undefined ? DEFAULT_BATCH : Number(flags.batch);
      if (!Number.isInteger(batch) || batch < 1 || batch > 10_000)
        throw new OpsUsageError('--batch must be an integer between 1 and 10000');
      const prefix = `v1:${ring.current}:`;
      const remaining = async () => (await ormSql(em).query<{ n: number }>(COUNT_TO_RESEAL, [prefix]))[0]!.n;
      const before = await remaining();
      if (flags['dry-run'] === true) return { dryRun: true, key: ring.current, wouldReseal: before };

      const failed: { id: string; reason: string }[] = [];
      let resealed = 0;
      // One transaction per batch: a killed run keeps what it committed, and the next run starts from what is left.
      for (;;) {
        const done = await transactional(em, async (tx) => {
          const rows = await ormSql(tx).query<{ id: string; secret: string; previous_secret: string | null }>(
            SECRETS_TO_RESEAL,
            [prefix, failed.map((f) => f.id), batch],
          );
          const sealed: { id: string; secret: string; previous_secret: string | null }[] = [];
          const reseal = (stored: string, id: string) => seal(ring, open(ring, stored, id), id);
          for (const row of rows) {
            try {
              sealed.push({
                id: row.id,
                secret: reseal(row.secret, row.id),
                // the secret being rotated out keeps signing during its overlap (webhooks.service.ts rotateSecret)
                previous_secret: row.previous_secret && reseal(row.previous_secret, row.id),
              });
            } catch (err) {
              if (!(err instanceof SecretKeyError)) throw err;
              failed.push({ id: row.id, reason: err.message });
            }
          }
          if (sealed.length > 0) await ormSql(tx).run(RESEAL_SECRETS, [JSON.stringify(sealed)]);
          return { seen: rows.length, sealed: sealed.length };
        });
        if (done.seen === 0) break;
        resealed += done.sealed;
        progress(`secrets:rotate-key: ${resealed} of ${before} re-encrypted under "${ring.current}"`);
      }
      // Rows another transaction held are skipped by this run; running the command again picks them up.
      const left = await remaining();
      // What an operator checks before removing an old key: no row left under it.
      const byKey = Object.fromEntries(
        (await ormSql(em).query<{ kid: string; n: number }>(SECRETS_BY_KEY)).map((r) => [r.kid, r.n]),
      );
      const result = { key: ring.current, resealed, remaining: left, byKey, failed };
      if (failed.length > 0)
        throw new OpsFailure(`${failed.length} secret(s) could not be opened: see "failed"`, result);
      return result;
    },
  },
];
