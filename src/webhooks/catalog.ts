// The nine subscribable events (spec section 6), with the descriptions and categories the API lists.
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
] as const;

export type EventType = (typeof EVENT_CATALOG)[number]['event'];
export const EVENT_TYPES: readonly string[] = EVENT_CATALOG.map((e) => e.event);
