// A charge with a due date as the API Pix writes it (CobVValor): each term with its BCB modalidade and its valorPerc,
// a decimal string with two places that is reais for an amount and a percentage for basis points (200 bps = "2.00").
import type { DueTerms } from '../../money/due-terms.ts';
import { toWire } from './money.ts';
import type { CobVValor, ValorPerc } from './types.ts';

// Basis points -> the percentage with two decimals: the same digits as centavos -> reais (1 bps = 0.01 %).
export const bpsToPerc = (bps: number): string => toWire(bps);

// The BCB's modalidades (tables of CobVValor): abatimento and multa 1 fixed, 2 percent; juros in calendar days 1
// amount, 2 percent a day, 3 a month, 4 a year; desconto 1 fixed until dates, 2 percent until dates, 3 amount a day
// early, 5 percent a day early (calendar days).
const FIXED_OR_PERCENT = { FIXED: 1, PERCENT: 2 } as const;
const JUROS = { DAILY_AMOUNT: 1, DAILY_PERCENT: 2, MONTHLY_PERCENT: 3, YEARLY_PERCENT: 4 } as const;
const DESCONTO = { FIXED_UNTIL: 1, PERCENT_UNTIL: 2, DAILY_AMOUNT: 3, DAILY_PERCENT: 5 } as const;

const valorPerc = (term: { amount: number } | { bps: number }) =>
  'amount' in term ? toWire(term.amount) : bpsToPerc(term.bps);

/** `valor` of PUT /v2/cobv/{txid}: the original amount and the terms present. */
export function cobvValor(amount: number, terms: DueTerms): CobVValor {
  const { rebate, discount, fine, interest } = terms;
  const valor: CobVValor = { original: toWire(amount) };
  if (rebate) valor.abatimento = { modalidade: FIXED_OR_PERCENT[rebate.mode], valorPerc: valorPerc(rebate) };
  if (fine) valor.multa = { modalidade: FIXED_OR_PERCENT[fine.mode], valorPerc: valorPerc(fine) } satisfies ValorPerc;
  if (interest) valor.juros = { modalidade: JUROS[interest.mode], valorPerc: valorPerc(interest) };
  if (discount) {
    const modalidade = DESCONTO[discount.mode];
    valor.desconto =
      discount.mode === 'FIXED_UNTIL' || discount.mode === 'PERCENT_UNTIL'
        ? {
            modalidade,
            descontoDataFixa: discount.dates.map((d) => ({ data: d.until, valorPerc: valorPerc(d) })),
          }
        : { modalidade, valorPerc: valorPerc(discount) };
  }
  return valor;
}
