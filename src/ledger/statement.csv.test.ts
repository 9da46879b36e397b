// Tests of the statement's CSV as a spreadsheet reads it (pt-BR and en formats).
import test from 'ava';
import fc from 'fast-check';
import { STATEMENT_TYPES } from './statement.ts';
import { STATEMENT_LABELS_PT_BR, ptBrRow, reais, saoPauloDateTime } from './statement.csv.ts';
import type { StatementEntryView } from './statement.service.ts';

// A spreadsheet's reading of `-1234,56`: the sign, the reais, the two digits of centavos.
const centavosOf = (text: string): number => {
  const m = /^(-?)(\d+),(\d{2})$/.exec(text);
  if (!m) throw new Error(`not an amount: ${text}`);
  const value = Number(m[2]) * 100 + Number(m[3]);
  return m[1] ? -value : value;
};

test('reais: a decimal comma, two digits, no thousands separator', (t) => {
  t.is(reais(-123456), '-1234,56');
  t.is(reais(5), '0,05');
  t.is(reais(-5), '-0,05');
  t.is(reais(0), '0,00');
  t.is(reais(100), '1,00');
  t.is(reais(123456789012), '1234567890,12');
  t.throws(() => reais(1.5));
});

test('reais: read back as a spreadsheet reads it, it is the same centavos', (t) => {
  fc.assert(
    fc.property(fc.maxSafeInteger(), (centavos) => {
      const text = reais(centavos);
      return /^-?\d+,\d{2}$/.test(text) && centavosOf(text) === centavos;
    }),
    { numRuns: 5000 },
  );
  t.pass('property held over 5000 runs');
});

test('the sum of the amounts written is the sum of the centavos', (t) => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: -10_000_000_00, max: 10_000_000_00 }), { maxLength: 200 }), (amounts) => {
      const written = amounts.map(reais).reduce((s, v) => s + centavosOf(v), 0);
      return written === amounts.reduce((s, v) => s + v, 0);
    }),
  );
  t.pass();
});

test('dates are dd/mm/aaaa hh:mm:ss in São Paulo, across midnight and the year', (t) => {
  t.is(saoPauloDateTime('2026-11-26T05:29:37.988Z'), '26/11/2026 02:29:37');
  t.is(saoPauloDateTime('2027-01-01T02:59:59.999Z'), '31/12/2026 23:59:59');
  t.is(saoPauloDateTime('2027-01-01T03:00:00.000Z'), '01/01/2027 00:00:00');
  t.is(saoPauloDateTime('2018-12-01T12:00:00Z'), '01/12/2018 10:00:00', 'daylight saving time, when there was one');
});

test('every statement type has the contract label', (t) => {
  t.deepEqual(Object.keys(STATEMENT_LABELS_PT_BR).sort(), [...STATEMENT_TYPES].sort());
  t.deepEqual(Object.values(STATEMENT_LABELS_PT_BR).sort(), [
    'Bloqueio MED',
    'Cobrança recebida',
    'Desbloqueio MED',
    'Devolução MED',
    'Estorno',
    'Pix Automático recebido',
    'Saque',
    'Saque revertido',
    'Split pago',
    'Split recebido',
  ]);
});

const entry = (over: Partial<StatementEntryView>): StatementEntryView => ({
  id: 'line',
  type: 'CHARGE_PAID',
  amount: 0,
  blockedAmount: 0,
  balanceAfter: 0,
  chargeId: null,
  withdrawalId: null,
  refundId: null,
  infractionId: null,
  recurringChargeId: null,
  createdAt: '2026-11-26T05:29:37.988Z',
  ...over,
});

test("a row: the recurring charge's id in Cobrança; each other id in its column; Lançamento the line", (t) => {
  t.deepEqual(
    ptBrRow(entry({ type: 'RECURRING_CHARGE_PAID', amount: 9901, balanceAfter: 9901, recurringChargeId: 'rc' })),
    ['26/11/2026 02:29:37', 'Pix Automático recebido', '99,01', '99,01', 'rc', '', '', '', 'line'],
  );
  t.deepEqual(
    ptBrRow(entry({ type: 'INFRACTION_REFUND', amount: -10_000, chargeId: 'c', refundId: 'r', infractionId: 'i' })),
    ['26/11/2026 02:29:37', 'Devolução MED', '-100,00', '0,00', 'c', '', 'r', 'i', 'line'],
  );
  t.deepEqual(ptBrRow(entry({ type: 'WITHDRAWAL', amount: -1, balanceAfter: 5, withdrawalId: 'w' })).slice(1, 6), [
    'Saque',
    '-0,01',
    '0,05',
    '',
    'w',
  ]);
});
