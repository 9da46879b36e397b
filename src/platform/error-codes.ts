// Every `code` an error body carries: what a client switches on (never on `message`, whose Portuguese text is for
// people). Each code is one family of messages: `{x}` stands for the part that varies, and a message may join several
// of its family with `; ` (every missing prerequisite, every recipient short of balance). The status is the one it is
// answered with ('4xx': the body parser's own). docs/openapi.yaml lists the same codes (test/error-codes.test.ts), and
// the test app refuses any error answer whose code is not here or whose message is not of its family.
export const ERROR_CODES = {
  // ---- the request itself ----
  validation_failed: { status: 400, messages: ['Dados inválidos', 'O corpo da requisição deve ser um objeto JSON'] },
  malformed_json: { status: 400, messages: ['JSON malformado no corpo da requisição'] },
  invalid_request: { status: '4xx', messages: ['Requisição inválida'] },
  payload_too_large: { status: 413, messages: ['Corpo da requisição muito grande'] },
  unsupported_media_type: { status: 415, messages: ['Content-Type deve ser application/json'] },
  route_not_found: { status: 404, messages: ['Rota não encontrada'] },
  // ---- credentials ----
  unauthenticated: {
    status: 401,
    messages: [
      'Cabeçalho de autorização ausente',
      'Token inválido ou expirado',
      'Chave de API inválida',
      'Chave de API inativa',
      'Token do webhook inválido',
      'Assinatura do adquirente inválida',
      'Token de métricas ausente ou inválido',
    ],
  },
  invalid_credentials: { status: 401, messages: ['Credenciais inválidas'] },
  forbidden: { status: 403, messages: ['Esta rota exige login com JWT'] },
  account_inactive: { status: 403, messages: ['Sua conta está inativa'] },
  prerequisites_missing: {
    status: 403,
    messages: [
      'KYC não aprovado',
      'Conta recebedora não configurada',
      'Nenhuma chave PIX ativa',
      'Pré-requisitos da cobrança mudaram; tente novamente',
      'Pré-requisitos do Pix Automático mudaram; tente novamente',
    ],
  },
  cnpj_required: { status: 403, messages: ['Pix Automático disponível apenas para recebedores com CNPJ'] },
  // ---- not found ----
  not_found: {
    status: 404,
    messages: [
      'Recurso não encontrado',
      'Merchant não encontrado',
      'Cobrança não encontrada',
      'Saque não encontrado',
      'Webhook não encontrado',
      'Entrega não encontrada',
      'Evento não encontrado',
      'Chave PIX não encontrada',
      'Chave de API não encontrada',
      'Infração não encontrada',
      'Autorização não encontrada',
      'Recorrência não encontrada',
      'Cobrança recorrente não encontrada',
    ],
  },
  no_scheduled_attempt: { status: 404, messages: ['Nenhuma tentativa agendada (SCHEDULED) nesta cobrança recorrente'] },
  // ---- conflicts ----
  idempotency_conflict: {
    status: 409,
    messages: [
      'Chave de idempotência já usada com outro corpo de requisição',
      'Chave de idempotência já usada por um webhook excluído',
    ],
  },
  transaction_conflict: {
    status: 409,
    messages: ['Conflito com uma operação simultânea; nada foi alterado, tente novamente'],
  },
  email_taken: { status: 409, messages: ['E-mail já cadastrado'] },
  pix_key_taken: { status: 409, messages: ['Chave PIX já cadastrada'] },
  webhook_inactive: { status: 409, messages: ['Webhook inativo: ative-o (status ACTIVE) antes de enviar'] },
  delivery_pending: {
    status: 409,
    messages: ['Entrega ainda pendente: a próxima tentativa já está agendada (veja nextAttemptAt)'],
  },
  infraction_open: { status: 409, messages: ['Cobrança com infração (MED) em aberto não pode ser estornada'] },
  infraction_already_open: { status: 409, messages: ['Esta cobrança já tem uma infração em aberto'] },
  refund_in_progress: { status: 409, messages: ['Esta cobrança tem um estorno em andamento'] },
  nothing_to_dispute: {
    status: 409,
    messages: ['Nada a disputar: o valor desta cobrança já foi estornado ou está sendo estornado'],
  },
  mandate_request_pending: { status: 409, messages: ['Já há uma solicitação enviada ao pagador aguardando resposta'] },
  retry_already_scheduled: {
    status: 409,
    messages: ['Já há uma tentativa agendada (SCHEDULED) para esta cobrança recorrente'],
  },
  // ---- business rules (422): nothing changed ----
  insufficient_balance: { status: 422, messages: ['Saldo insuficiente'] },
  recipient_insufficient_balance: {
    status: 422,
    messages: ['Saldo insuficiente do recebedor {merchantId} para devolver sua parte do estorno ({amount} centavos)'],
  },
  split_recipient_invalid: { status: 422, messages: ['Recebedor de split inválido: {problems}'] },
  charge_not_pending: { status: 422, messages: ['Cobrança não está pendente'] },
  payment_before_charge: { status: 422, messages: ['date é anterior à criação da cobrança'] },
  charge_not_paid: {
    status: 422,
    messages: ['Apenas cobranças pagas podem ser estornadas', 'Apenas cobranças pagas podem receber uma infração'],
  },
  refund_window_expired: { status: 422, messages: ['O prazo para estorno terminou: até {days} dias após o pagamento'] },
  refund_exceeds_refundable: {
    status: 422,
    messages: ['Valor acima do que ainda pode ser estornado desta cobrança: {left} centavos'],
  },
  defense_closed: {
    status: 422,
    messages: ['A defesa só pode ser enviada enquanto a infração está aberta e dentro do prazo'],
  },
  webhook_limit_reached: { status: 422, messages: ['Limite de {max} webhooks atingido'] },
  charge_unfit_for_mandate: {
    status: 422,
    messages: [
      'chargeId deve ser uma cobrança com vencimento PENDING deste recebedor, do mesmo pagador (customer.document) e sem outra autorização ativa',
    ],
  },
  mandate_only_cancel: { status: 422, messages: ['Somente o cancelamento é permitido nesta autorização'] },
  mandate_not_cancelable: { status: 422, messages: ['Autorização {status}: não pode mais ser cancelada'] },
  mandate_not_approvable: { status: 422, messages: ['Autorização {status}: não pode mais ser aprovada'] },
  mandate_not_rejectable: { status: 422, messages: ['Autorização {status}: não pode mais ser rejeitada'] },
  mandate_expired: { status: 422, messages: ['Autorização expirou em {expiresAt}: o pagador não pode mais aprová-la'] },
  mandate_charge_not_payable: {
    status: 422,
    messages: ['A cobrança da autorização não pode mais ser paga ({status})'],
  },
  payer_max_amount_too_low: {
    status: 422,
    messages: ['payerMaxAmount deve ser maior ou igual a minAmount ({minAmount})'],
  },
  mandate_not_push: { status: 422, messages: ['Somente autorizações da jornada PUSH têm solicitação ao pagador'] },
  mandate_not_requestable: { status: 422, messages: ['Autorização {status}: não aceita nova solicitação'] },
  mandate_request_not_renewable: {
    status: 422,
    messages: ['Nova solicitação só depois da última EXPIRED ou REJECTED'],
  },
  mandate_not_approved: { status: 422, messages: ['A autorização precisa estar APPROVED para receber cobranças'] },
  due_date_out_of_window: { status: 422, messages: ['dueDate deve estar entre hoje + 2 e hoje + 10 dias'] },
  due_date_out_of_period: { status: 422, messages: ['dueDate deve estar entre startDate e endDate da autorização'] },
  mandate_amount_mismatch: {
    status: 422,
    messages: ['amount deve ser o valor fixo da autorização ({amount} centavos)'],
  },
  cycle_already_charged: {
    status: 422,
    messages: ['Já existe uma cobrança recorrente ativa neste ciclo da autorização'],
  },
  recurring_charge_not_cancelable: {
    status: 422,
    messages: ['Somente cobranças recorrentes CREATED ou ACTIVE podem ser canceladas'],
  },
  cancel_after_due_date: {
    status: 422,
    messages: ['A cobrança recorrente só pode ser cancelada antes do vencimento (dueDate)'],
  },
  retry_policy_required: {
    status: 422,
    messages: ['Novas tentativas exigem uma autorização com retryPolicy THREE_IN_SEVEN_DAYS'],
  },
  retry_not_allowed: {
    status: 422,
    messages: ['Nova tentativa só para cobrança ACTIVE com a última tentativa REJECTED'],
  },
  retry_window: { status: 422, messages: ['date deve estar entre dueDate + 1 e dueDate + 7'] },
  retry_too_soon: { status: 422, messages: ['date deve ser a partir de amanhã'] },
  retry_same_day: { status: 422, messages: ['Já houve uma tentativa nesta data'] },
  retry_limit_reached: { status: 422, messages: ['No máximo {max} novas tentativas por cobrança recorrente'] },
  kyc_rejected: {
    status: 422,
    messages: ['O KYC desta conta foi reprovado pela operação: a ativação da conta de testes não o aprova de novo'],
  },
  // ---- limits ----
  rate_limited: { status: 429, messages: ['Muitas requisições, tente novamente em instantes'] },
  too_many_streams: { status: 429, messages: ['Limite de {max} conexões abertas ao stream de eventos atingido'] },
  test_sends_limited: {
    status: 429,
    messages: ['Limite de envios de teste atingido: no máximo {max} por minuto por webhook'],
  },
  // ---- the service and its PSP ----
  internal_error: { status: 500, messages: ['Erro interno'] },
  acquirer_refused: {
    status: 502,
    messages: [
      'O adquirente recusou a operação',
      'O adquirente recusou a operação: {reason}',
      'O adquirente não conhece esta autorização',
      'Pix Automático indisponível: a conta recebedora no adquirente não está configurada',
    ],
  },
  acquirer_unavailable: {
    status: 503,
    messages: [
      'Adquirente indisponível no momento; tente novamente em instantes',
      'O adquirente não devolveu o QR Code',
      'O adquirente devolveu um idRec de outra política de retentativa',
    ],
  },
  service_restarting: { status: 503, messages: ['Servidor reiniciando: reconecte em instantes'] },
} as const satisfies Record<string, { status: number | '4xx'; messages: readonly string[] }>;

export type ErrorCode = keyof typeof ERROR_CODES;

// An error answer's body, `{ code, message, errors?, requestId? }`: every writer of one builds it here, so its code is
// one of the catalogue's.
export function errorBody(
  code: ErrorCode,
  message: string,
  more: { errors?: { field: string; message: string }[]; requestId?: string } = {},
) {
  return { code, message, ...more };
}
