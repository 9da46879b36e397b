// The statement's CSV for Brazilian spreadsheets (`?format=csv&locale=pt-BR`, contract "Developer experience"), pure:
// `;`-separated (a comma is the decimal mark), UTF-8 with a BOM (Excel reads it as UTF-8), Portuguese headers and
// labels, amounts in reais with a comma and no thousands separator, times in America/Sao_Paulo.
import type { Options } from 'csv-stringify';
import type { StatementType } from './statement.ts';
import type { StatementEntryView } from './statement.service.ts';

// The contract's labels, one per statement type (a new type does not compile until it has one). The portal's screen
// keeps its own table (src/portal/assets/format.js): a browser module, which src/ledger may not import.
export const STATEMENT_LABELS_PT_BR = {
  CHARGE_PAID: 'Cobrança recebida',
  SPLIT_RECEIVED: 'Split recebido',
  SPLIT_PAID: 'Split pago',
  REFUND: 'Estorno',
  WITHDRAWAL: 'Saque',
  WITHDRAWAL_REVERSED: 'Saque revertido',
  INFRACTION_BLOCK: 'Bloqueio MED',
  INFRACTION_RELEASE: 'Desbloqueio MED',
  INFRACTION_REFUND: 'Devolução MED',
  RECURRING_CHARGE_PAID: 'Pix Automático recebido',
} as const satisfies Record<StatementType, string>;

/** Centavos as reais with a decimal comma and no thousands separator: -123456 -> "-1234,56", 5 -> "0,05". */
export function reais(centavos: number): string {
  if (!Number.isSafeInteger(centavos)) throw new RangeError(`not a whole number of centavos: ${centavos}`);
  const abs = Math.abs(centavos);
  const cents = abs % 100;
  return `${centavos < 0 ? '-' : ''}${(abs - cents) / 100},${String(cents).padStart(2, '0')}`;
}

const SAO_PAULO = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/Sao_Paulo',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
  hourCycle: 'h23',
});

/** An instant as `dd/mm/aaaa hh:mm:ss` in America/Sao_Paulo (Brasília time, no daylight saving since 2019). */
export function saoPauloDateTime(iso: string): string {
  const part = Object.fromEntries(SAO_PAULO.formatToParts(new Date(iso)).map((p) => [p.type, p.value]));
  return `${part.day}/${part.month}/${part.year} ${part.hour}:${part.minute}:${part.second}`;
}

export const PT_BR_HEADER = [
  'Data',
  'Tipo',
  'Valor (R$)',
  'Saldo após (R$)',
  'Cobrança',
  'Saque',
  'Estorno',
  'Infração',
  'Lançamento',
] as const;

/**
 * A statement line as a row of the header above. `Valor` is the line's `amount` (the change of available + blocked)
 * and `Saldo após` its `balanceAfter`, so each `Saldo após` is the one before plus `Valor` (a MED block or release
 * moves money between the two and shows 0,00). `Cobrança` is the charge, or the recurring charge of a
 * `Pix Automático recebido` line and its refunds (a line has one or the other); `Lançamento` the line's id.
 */
export const ptBrRow = (e: StatementEntryView): string[] => [
  saoPauloDateTime(e.createdAt),
  STATEMENT_LABELS_PT_BR[e.type as StatementType] ?? e.type,
  reais(e.amount),
  reais(e.balanceAfter),
  e.chargeId ?? e.recurringChargeId ?? '',
  e.withdrawalId ?? '',
  e.refundId ?? '',
  e.infractionId ?? '',
  e.id,
];

export const PT_BR_CSV_OPTIONS: Options = { delimiter: ';', bom: true, header: true, columns: [...PT_BR_HEADER] };
