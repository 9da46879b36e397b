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
// a calendar day as the API gives it (YYYY-MM-DD, São Paulo) -> "05/01/2027", without a time zone in between
export const day = (ymd) => (ymd ? ymd.split('-').reverse().join('/') : '—');
// a calendar day plus n days (YYYY-MM-DD, no time zone: UTC midnight to UTC midnight)
export const dayPlus = (ymd, n) => new Date(Date.parse(`${ymd}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
// a CPF or CNPJ as people write it: 123.456.789-09, 12.345.678/0001-95
export const documentText = (d) =>
  /^\d{11}$/.test(d)
    ? d.replace(/^(\d{3})(\d{3})(\d{3})(\d{2})$/, '$1.$2.$3-$4')
    : /^\d{14}$/.test(d)
      ? d.replace(/^(\d{2})(\d{3})(\d{3})(\d{4})(\d{2})$/, '$1.$2.$3/$4-$5')
      : d;
// today in São Paulo, as YYYY-MM-DD (the API's days)
export const todaySaoPaulo = () =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date());

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
  RECURRING_CHARGE_PAID: 'Cobrança recorrente recebida',
};
// Pix Automático
export const MANDATE_STATUS = {
  CREATED: 'Criada',
  APPROVED: 'Aprovada',
  REJECTED: 'Recusada',
  EXPIRED: 'Expirada',
  CANCELED: 'Cancelada',
};
export const RECURRING_CHARGE_STATUS = {
  CREATED: 'Enviada',
  ACTIVE: 'Agendada',
  PAID: 'Paga',
  FAILED: 'Falhou',
  CANCELED: 'Cancelada',
  EXPIRED: 'Expirada',
};
export const ATTEMPT_STATUS = { SCHEDULED: 'Agendada', PAID: 'Paga', REJECTED: 'Recusada', CANCELED: 'Cancelada' };
export const ATTEMPT_KIND = { DUE_DATE: 'No vencimento', RETRY: 'Nova tentativa' };
export const JOURNEY = {
  QR: 'QR Code',
  QR_WITH_PAYMENT: 'QR Code com pagamento inicial',
  DUE_DATE_QR: 'QR Code de cobrança com vencimento',
  PUSH: 'Pedido ao banco do pagador',
};
export const FREQUENCY = {
  WEEKLY: 'Semanal',
  MONTHLY: 'Mensal',
  QUARTERLY: 'Trimestral',
  SEMIANNUAL: 'Semestral',
  ANNUAL: 'Anual',
};
export const RETRY_POLICY = { NONE: 'Não permitidas', THREE_IN_SEVEN_DAYS: 'Até 3 em 7 dias' };
export const REQUEST_STATUS = {
  SENT: 'Enviado',
  ACCEPTED: 'Aceito',
  REJECTED: 'Recusado',
  EXPIRED: 'Expirado',
  CANCELED: 'Cancelado',
};
export const KYC_STATUS = { PENDING: 'Em análise', APPROVED: 'Aprovado', REJECTED: 'Recusado' };
// the tone of a status badge
export const tone = (status) =>
  ({ PAID: 'ok', COMPLETED: 'ok', SUCCEEDED: 'ok', ACTIVE: 'ok', APPROVED: 'ok', FAILED: 'bad', REJECTED: 'bad' })[
    status
  ] || 'neutral';
