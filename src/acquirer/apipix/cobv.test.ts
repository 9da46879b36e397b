// Tests of the API Pix cobv (a charge with a due date) as the PSP receives it.
import test from 'ava';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { bpsToPerc, cobvValor } from './cobv.ts';
import { fromWire } from './money.ts';
import type { DueTerms } from '../../money/due-terms.ts';
import { bcbViolations } from '../../../test/support/apipix/stub-schema.ts';
import { termsOfValor } from '../../../test/support/apipix/stub-cobv.ts';

const none: DueTerms = { rebate: null, discount: null, fine: null, interest: null };

test('basis points are the percentage with two decimals, exactly: 200 bps = "2.00"', (t) => {
  const cases: [number, string][] = [
    [1, '0.01'],
    [5, '0.05'],
    [99, '0.99'],
    [200, '2.00'],
    [250, '2.50'],
    [1_200, '12.00'],
    [9_999, '99.99'],
    [10_000, '100.00'],
  ];
  for (const [bps, perc] of cases) t.is(bpsToPerc(bps), perc, String(bps));
  fc.assert(fc.property(fc.integer({ min: 0, max: 10_000_000 }), (bps) => fromWire(bpsToPerc(bps)) === bps));
});

test('each term with its BCB modalidade: amounts in reais, percentages from basis points', (t) => {
  t.deepEqual(cobvValor(10_050, none), { original: '100.50' });
  t.deepEqual(
    cobvValor(10_000, {
      rebate: { mode: 'FIXED', amount: 150 },
      fine: { mode: 'PERCENT', bps: 200 },
      interest: { mode: 'DAILY_AMOUNT', amount: 33 },
      discount: {
        mode: 'FIXED_UNTIL',
        dates: [
          { until: '2026-03-01', amount: 1_000 },
          { until: '2026-03-05', amount: 500 },
        ],
      },
    }),
    {
      original: '100.00',
      abatimento: { modalidade: 1, valorPerc: '1.50' },
      multa: { modalidade: 2, valorPerc: '2.00' },
      juros: { modalidade: 1, valorPerc: '0.33' },
      desconto: {
        modalidade: 1,
        descontoDataFixa: [
          { data: '2026-03-01', valorPerc: '10.00' },
          { data: '2026-03-05', valorPerc: '5.00' },
        ],
      },
    },
  );
  const modalidades = (terms: Partial<DueTerms>) => {
    const v = cobvValor(100, { ...none, ...terms });
    return [v.abatimento?.modalidade, v.desconto?.modalidade, v.multa?.modalidade, v.juros?.modalidade];
  };
  t.deepEqual(modalidades({ rebate: { mode: 'PERCENT', bps: 1 }, fine: { mode: 'FIXED', amount: 1 } }), [
    2,
    undefined,
    1,
    undefined,
  ]);
  t.is(modalidades({ discount: { mode: 'PERCENT_UNTIL', dates: [{ until: '2026-01-01', bps: 1 }] } })[1], 2);
  t.is(modalidades({ discount: { mode: 'DAILY_AMOUNT', amount: 1 } })[1], 3);
  t.is(modalidades({ discount: { mode: 'DAILY_PERCENT', bps: 1 } })[1], 5);
  t.is(modalidades({ interest: { mode: 'DAILY_PERCENT', bps: 1 } })[3], 2);
  t.is(modalidades({ interest: { mode: 'MONTHLY_PERCENT', bps: 1 } })[3], 3);
  t.is(modalidades({ interest: { mode: 'YEARLY_PERCENT', bps: 1 } })[3], 4);
});

// Any terms the API accepts, as the PSP receives them.
const amount = fc.integer({ min: 1, max: 2_147_483_647 });
const bps = fc.integer({ min: 1, max: 10_000 });
const date = fc
  .integer({ min: 0, max: 3000 })
  .map((n) => new Date(Date.UTC(2026, 0, 1) + n * 86_400_000).toISOString().slice(0, 10));
const dates = <T>(value: fc.Arbitrary<T>) =>
  fc
    .uniqueArray(date, { minLength: 1, maxLength: 3 })
    .chain((ds) => fc.tuple(...ds.sort().map((until) => value.map((v) => ({ until, v })))));
const termsArb: fc.Arbitrary<DueTerms> = fc.record({
  rebate: fc.option(
    fc.oneof(
      amount.map((a) => ({ mode: 'FIXED' as const, amount: a })),
      bps.map((b) => ({ mode: 'PERCENT' as const, bps: b })),
    ),
  ),
  fine: fc.option(
    fc.oneof(
      amount.map((a) => ({ mode: 'FIXED' as const, amount: a })),
      bps.map((b) => ({ mode: 'PERCENT' as const, bps: b })),
    ),
  ),
  interest: fc.option(
    fc.oneof(
      amount.map((a) => ({ mode: 'DAILY_AMOUNT' as const, amount: a })),
      fc
        .constantFrom('DAILY_PERCENT' as const, 'MONTHLY_PERCENT' as const, 'YEARLY_PERCENT' as const)
        .chain((mode) => bps.map((b) => ({ mode, bps: b }))),
    ),
  ),
  discount: fc.option(
    fc.oneof(
      amount.map((a) => ({ mode: 'DAILY_AMOUNT' as const, amount: a })),
      bps.map((b) => ({ mode: 'DAILY_PERCENT' as const, bps: b })),
      dates(amount).map((ds) => ({
        mode: 'FIXED_UNTIL' as const,
        dates: ds.map(({ until, v }) => ({ until, amount: v })),
      })),
      dates(bps).map((ds) => ({
        mode: 'PERCENT_UNTIL' as const,
        dates: ds.map(({ until, v }) => ({ until, bps: v })),
      })),
    ),
  ),
});

test('property: the cobv the adapter sends is valid by the BCB schema and reads back to the same terms', (t) => {
  fc.assert(
    fc.property(amount, termsArb, (original, terms) => {
      const valor = cobvValor(original, terms);
      const body = {
        calendario: { dataDeVencimento: '2026-12-31', validadeAposVencimento: 30 },
        devedor: { cpf: '52998224725', nome: 'Maria' },
        valor,
        chave: 'f3b2c1d0-1234-4abc-8def-0123456789ab',
        solicitacaoPagador: 'x',
      };
      const violations = bcbViolations('PUT', '/v2/cobv/:txid', body);
      if (violations.length) throw new Error(JSON.stringify({ valor, violations }));
      // the stub reads the modalidades back with its own table
      return fromWire(valor.original) === original && isDeepStrictEqual(termsOfValor(valor), { ...terms }); // fc.record: a null prototype;
    }),
  );
  t.pass();
});
