// pt-BR formatting (Intl) of money, dates and the API's codes, and the reading of an amount typed in reais.
const BRL = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const DATE_TIME = new Intl.DateTimeFormat('pt-BR', {
  timeZone: 'America/Sao_Paulo',
  dateStyle: 'short',
  timeStyle: 'short',
});

// centavos -> "R$ 1.234,56" (Intl puts a no-break space after R$)
export const money = (centavos) => (centavos === null || centavos === undefined ? '—' : BRL.format(centavos / 100));
export const signedMoney = (centavos) => (centavos > 0 ? '+' : '') + money(centavos);
export const dateTime = (iso) => (iso ? DATE_TIME.format(new Date(iso)) : '—');

// "1.234,56", "1234,5", "R$ 10", "10.50" -> centavos, without floating point; null when it is not an amount.
export function parseMoney(text) {
  let s = String(text).replace(/R\$|\s/g, '');
  if (s.includes(',')) s = s.replace(/\./g, '').replace(',', '.');
  else if (/^\d{1,3}(\.\d{3})+$/.test(s)) s = s.replace(/\./g, ''); // "1.234": thousands
  const m = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(s);
  if (!m) return null;
  return Number(m[1]) * 100 + Number((m[2] || '').padEnd(2, '0'));
}
// centavos -> "1234,56" for an input's initial value
export const moneyInput = (centavos) => (centavos / 100).toFixed(2).replace('.', ',');

export const CHARGE_STATUS = {
  PENDING: 'Aguardando pagamento',
  PAID: 'Paga',
  REFUNDED: 'Reembolsada',
  CANCELED: 'Expirada',
  FAILED: 'Falhou',
};
export const REFUND_STATUS = { PROCESSING: 'Em processamento', COMPLETED: 'Concluído', FAILED: 'Falhou' };
export const WITHDRAWAL_STATUS = { PROCESSING: 'Em processamento', COMPLETED: 'Concluído', FAILED: 'Falhou' };
export const WEBHOOK_STATUS = { ACTIVE: 'Ativo', INACTIVE: 'Pausado' };
export const DELIVERY_STATUS = { PENDING: 'Tentando', SUCCEEDED: 'Entregue', FAILED: 'Falhou' };
export const KEY_STATUS = { ACTIVE: 'Ativa', INACTIVE: 'Desativada' };
export const PIX_KEY_TYPES = [
  ['EMAIL', 'E-mail'],
  ['CPF', 'CPF'],
  ['CNPJ', 'CNPJ'],
  ['PHONE', 'Telefone'],
  ['CHAVE_ALEATORIA', 'Chave aleatória'],
];
export const ENTRY_TYPE = {
  CHARGE_PAID: 'Cobrança recebida',
  SPLIT_RECEIVED: 'Split recebido',
  SPLIT_PAID: 'Split repassado',
  REFUND: 'Reembolso',
  WITHDRAWAL: 'Saque',
  WITHDRAWAL_REVERSED: 'Saque estornado',
  INFRACTION_BLOCK: 'Bloqueio (MED)',
  INFRACTION_RELEASE: 'Desbloqueio (MED)',
  INFRACTION_REFUND: 'Devolução (MED)',
};
export const KYC_STATUS = { PENDING: 'Em análise', APPROVED: 'Aprovado', REJECTED: 'Recusado' };
// the tone of a status badge
export const tone = (status) =>
  ({ PAID: 'ok', COMPLETED: 'ok', SUCCEEDED: 'ok', ACTIVE: 'ok', APPROVED: 'ok', FAILED: 'bad', REJECTED: 'bad' })[
    status
  ] || 'neutral';
