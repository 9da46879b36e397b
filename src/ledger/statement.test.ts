// Tests that every kind of posting the code makes has its statement line.
import test from 'ava';
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KIND_TYPES, STATEMENT_TYPES, statementLines, statementType, type LedgerKind } from './statement.ts';

const src = fileURLToPath(new URL('..', import.meta.url));
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory()
      ? files(join(dir, d.name))
      : d.name.endsWith('.ts') && !d.name.endsWith('.test.ts')
        ? [join(dir, d.name)]
        : [],
  );
const literals = (text: string) => [...text.matchAll(/'([a-z][a-z_]*(?:\.[a-z_]+)*)'/g)].map((m) => m[1]);

// Every kind the code posts, found in its source: post(em, <kind>, …) and { kind: <kind> } in the files that import
// the ledger; a kind passed as a variable is found in that variable's type (`kind: 'a' | 'b'`).
function postedKinds(): Map<string, string> {
  const found = new Map<string, string>();
  for (const file of files(src)) {
    const text = readFileSync(file, 'utf8');
    if (!/ledger\.service\.ts'/.test(text)) continue;
    const exprs = [
      ...[...text.matchAll(/\bpost\(\s*\w+,\s*([^,]+),/g)].map((m) => m[1]),
      ...[...text.matchAll(/\bkind: ('[^']+'(?: as const)?)/g)].map((m) => m[1]),
      ...[...text.matchAll(/\bkind: ('[^']+'(?:\s*\|\s*'[^']+')+)/g)].map((m) => m[1]),
    ];
    for (const e of exprs) {
      const ks = literals(e);
      if (ks.length === 0 && !/^\s*kind\s*$/.test(e))
        throw new Error(`${file}: a ledger kind the test cannot read: ${e}`);
      for (const k of ks) found.set(k, file);
    }
  }
  return found;
}

test('every ledger kind the code posts has a statement type, and every mapped kind is posted somewhere', (t) => {
  const posted = postedKinds();
  t.true(posted.size >= 10, [...posted.keys()].join(', ')); // the scan finds them (a broken regex finds none)
  for (const [kind, file] of posted) t.true(kind in KIND_TYPES, `${kind} (${file}) has no entry in KIND_TYPES`);
  for (const kind of Object.keys(KIND_TYPES)) t.true(posted.has(kind), `${kind} is mapped but never posted`);
});

test('each mapped kind gives a statement type for a credit and a debit; a split is SPLIT_RECEIVED or SPLIT_PAID', (t) => {
  for (const [kind, type] of Object.entries(KIND_TYPES) as [LedgerKind, unknown][]) {
    if (type === null) {
      t.throws(() => statementType(kind, 1));
      continue;
    }
    for (const amount of [5, 0, -5]) t.true(STATEMENT_TYPES.includes(statementType(kind, amount)));
  }
  t.is(statementType('charge.split', 700), 'SPLIT_RECEIVED');
  t.is(statementType('charge.split', -700), 'SPLIT_PAID');
});

test('lines: one per transaction and merchant, the sum of its postings, its blocked part apart; platform accounts and zeros make none', (t) => {
  fc.assert(
    fc.property(
      fc.array(
        fc.array(
          fc.record({
            merchant: fc.constantFrom('a', 'b', 'c', undefined),
            amount: fc.integer({ min: -1000, max: 1000 }),
            blocked: fc.boolean(),
          }),
          { maxLength: 6 },
        ),
        { maxLength: 6 },
      ),
      (txs) => {
        const input = txs.map((ps) => ({
          kind: 'infraction.refund' as const,
          postings: ps.map((p) => ({ amount: p.amount, merchantId: p.merchant, blocked: p.blocked })),
        }));
        const lines = statementLines(input);
        // per merchant, the lines add up to its postings
        for (const m of ['a', 'b', 'c']) {
          const posted = input.flatMap((x) => x.postings).filter((p) => p.merchantId === m);
          const mine = lines.filter((l) => l.merchantId === m);
          if (mine.reduce((s, l) => s + l.amount, 0) !== posted.reduce((s, p) => s + p.amount, 0)) return false;
          const blocked = posted.filter((p) => p.blocked).reduce((s, p) => s + p.amount, 0);
          if (mine.reduce((s, l) => s + l.blocked, 0) !== blocked) return false;
        }
        // at most one line per (transaction, merchant), in transaction order
        const keys = lines.map((l) => `${l.tx}:${l.merchantId}`);
        return new Set(keys).size === keys.length && lines.every((l, i) => i === 0 || lines[i - 1].tx <= l.tx);
      },
    ),
  );
  t.deepEqual(
    statementLines([{ kind: 'charge.payment', postings: [{ amount: 0, merchantId: 'a' }, { amount: 9 }] }]),
    [],
  );
});
