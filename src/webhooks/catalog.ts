// The subscribable events: the spec's nine (section 6) and Pix Automático's (contract), with the descriptions and categories the API lists.
export const EVENT_CATALOG = [
  { event: 'charge.paid', description: 'Cobrança PIX paga pelo cliente', category: 'Cobranças' },
  { event: 'charge.refunded', description: 'Cobrança PIX estornada', category: 'Cobranças' },
  { event: 'withdraw.completed', description: 'Saque concluído', category: 'Saques' },
  { event: 'withdraw.failed', description: 'Saque falhou ou foi devolvido', category: 'Saques' },
  { event: 'withdraw.refunded', description: 'Saque devolvido (estorno da transferência)', category: 'Saques' },
  { event: 'pixkey.updated', description: 'Chave PIX atualizada', category: 'Chave PIX' },
  { event: 'infraction.received', description: 'Nova infração PIX (MED) recebida', category: 'Infrações' },
  { event: 'infraction.updated', description: 'Infração PIX atualizada', category: 'Infrações' },
  { event: 'infraction.refund_completed', description: 'Devolução da infração concluída', category: 'Infrações' },
  {
    event: 'mandate.approved',
    description: 'Autorização de Pix Automático aprovada pelo pagador',
    category: 'Pix Automático',
  },
  {
    event: 'mandate.rejected',
    description: 'Autorização de Pix Automático recusada pelo pagador',
    category: 'Pix Automático',
  },
  { event: 'mandate.canceled', description: 'Autorização de Pix Automático cancelada', category: 'Pix Automático' },
  { event: 'mandate.expired', description: 'Autorização de Pix Automático expirada', category: 'Pix Automático' },
  { event: 'recurring_charge.paid', description: 'Cobrança recorrente paga', category: 'Pix Automático' },
  {
    event: 'recurring_charge.attempt_failed',
    description: 'Tentativa de débito recusada; a cobrança ainda pode ser paga numa nova tentativa',
    category: 'Pix Automático',
  },
  {
    event: 'recurring_charge.failed',
    description: 'Cobrança recorrente não paga (sem novas tentativas)',
    category: 'Pix Automático',
  },
  { event: 'recurring_charge.canceled', description: 'Cobrança recorrente cancelada', category: 'Pix Automático' },
  {
    event: 'recurring_charge.expired',
    description: 'Cobrança recorrente expirada sem pagamento',
    category: 'Pix Automático',
  },
  {
    event: 'recurring_charge.refunded',
    description: 'Devolução de cobrança recorrente concluída',
    category: 'Pix Automático',
  },
] as const;

export type EventType = (typeof EVENT_CATALOG)[number]['event'];
export const EVENT_TYPES: readonly string[] = EVENT_CATALOG.map((e) => e.event);
