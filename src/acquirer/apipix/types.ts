// Wire shapes of the Banco Central API Pix 2.9.0 (schemas named as in bcb-api-pix-2.9.0.yaml) and of the few
// Efí-specific calls. Amounts on the wire are decimal strings; the client adds `amount` (centavos) to what it returns.

export type Devedor = { cpf: string; nome: string } | { cnpj: string; nome: string };
export type InfoAdicional = { nome: string; valor: string };

// CobSolicitada: the body of PUT /v2/cob/{txid}.
export type CobSolicitada = {
  calendario: { expiracao: number };
  devedor?: Devedor;
  valor: { original: string; modalidadeAlteracao?: 0 | 1 };
  chave: string;
  solicitacaoPagador?: string;
  infoAdicionais?: InfoAdicional[];
};

// CobRevisada: the body of PATCH /v2/cob/{txid}; every field optional.
export type CobRevisada = Partial<CobSolicitada> & { status?: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' };

export type CobStatus = 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';

// CobVValor: a due-date charge's value and its terms; `valorPerc` is reais or a percentage, two decimals either way.
export type ValorPerc = { modalidade: number; valorPerc: string };
export type CobVValor = {
  original: string;
  abatimento?: ValorPerc;
  desconto?: { modalidade: number; valorPerc?: string; descontoDataFixa?: { data: string; valorPerc: string }[] };
  multa?: ValorPerc;
  juros?: ValorPerc;
};

// CobVSolicitada: the body of PUT /v2/cobv/{txid}.
export type CobVSolicitada = {
  calendario: { dataDeVencimento: string; validadeAposVencimento?: number };
  devedor: Devedor;
  valor: CobVValor;
  chave: string;
  solicitacaoPagador?: string;
  infoAdicionais?: InfoAdicional[];
};

// CobVRevisada: the body of PATCH /v2/cobv/{txid}; every field optional.
export type CobVRevisada = Partial<CobVSolicitada> & { status?: 'REMOVIDA_PELO_USUARIO_RECEBEDOR' };

// CobVGerada (PUT/PATCH answer) and CobVCompleta (GET answer, with the Pix received).
export type CobVGerada = Omit<CobVSolicitada, 'calendario'> & {
  calendario: { criacao: string; dataDeVencimento: string; validadeAposVencimento: number };
  txid: string;
  revisao: number;
  loc?: { id: number; location: string; tipoCob: 'cob' | 'cobv'; criacao?: string };
  location?: string;
  status: CobStatus;
  recebedor?: Record<string, unknown>;
  pixCopiaECola?: string;
  pix?: PixWire[];
};

// CobGerada (PUT/PATCH answer) and CobCompleta (GET answer, with the Pix received).
export type CobGerada = {
  calendario: { criacao: string; expiracao: number };
  txid: string;
  revisao: number;
  loc?: { id: number; location: string; tipoCob: 'cob' | 'cobv'; criacao?: string };
  location?: string;
  status: CobStatus;
  devedor?: Devedor;
  valor: { original: string; modalidadeAlteracao?: 0 | 1 };
  chave: string;
  solicitacaoPagador?: string;
  infoAdicionais?: InfoAdicional[];
  pixCopiaECola?: string;
  pix?: PixWire[];
};

export type DevolucaoStatus = 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
export type DevolucaoNatureza = 'ORIGINAL' | 'RETIRADA' | 'MED_OPERACIONAL' | 'MED_FRAUDE' | 'MED_PIX_AUTOMATICO';

// DevolucaoSolicitada: the body of PUT /v2/pix/{e2eid}/devolucao/{id}.
export type DevolucaoSolicitada = { valor: string; natureza?: 'ORIGINAL' | 'RETIRADA'; descricao?: string };

export type DevolucaoWire = {
  id: string;
  rtrId: string;
  valor: string;
  natureza?: DevolucaoNatureza;
  descricao?: string;
  horario: { solicitacao?: string; liquidacao?: string };
  status: DevolucaoStatus;
  motivo?: string;
};

// Pix.componentesValor: what a payment is made of (a cobv's: original, abatimento, desconto, multa, juros).
export type ComponentesValor = Partial<
  Record<'original' | 'abatimento' | 'desconto' | 'multa' | 'juros' | 'saque' | 'troco', { valor: string }>
>;

export type PixWire = {
  endToEndId: string;
  txid?: string;
  valor: string;
  componentesValor?: ComponentesValor;
  chave?: string;
  horario: string;
  infoPagador?: string;
  devolucoes?: DevolucaoWire[];
};

export type Paginacao = {
  paginaAtual: number;
  itensPorPagina: number;
  quantidadeDePaginas: number;
  quantidadeTotalDeItens: number;
};

// WebhookCompleto: the answer of GET /v2/webhook/{chave}.
export type WebhookCompleto = { webhookUrl: string; chave?: string; cnpj?: string; criacao: string };

// Problema (RFC 7807 problem+json), the body of every PSP error.
export type Violacao = { razao?: string; propriedade?: string; valor?: string };
export type Problema = {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  correlationId?: string;
  violacoes?: Violacao[];
};

// Efí: PUT /v3/gn/pix/{idEnvio} and GET /v2/gn/pix/enviados/id-envio/{idEnvio} (sdk-node-apis-efi, src/types/pix.ts).
export type EnvioStatus = 'EM_PROCESSAMENTO' | 'REALIZADO' | 'NAO_REALIZADO';
export type EnvioSolicitado = {
  valor: string;
  pagador: { chave: string; infoPagador?: string };
  favorecido: { chave: string; cpf?: string; cnpj?: string };
};
export type EnvioWire = {
  idEnvio: string;
  e2eId?: string; // the PUT answer as the contract and Efí's examples write it
  endToEndId?: string; // the GET answer (and the SDK's typing of the PUT answer)
  valor: string;
  horario: { solicitacao: string; liquidacao?: string };
  status: EnvioStatus;
  chave?: string;
  infoPagador?: string;
  favorecido?: { chave?: string } & Record<string, unknown>;
};

// Efí MED: GET /v2/gn/infracoes (sdk-node-apis-efi, MedListResponseSchema). `valor` is a JSON number of reais there.
export type InfracaoStatus = 'ABERTA' | 'EM_DEFESA' | 'ACEITA' | 'REJEITADA' | 'CANCELADA_EFI';
export type InfracaoWire = {
  idInfracao: string;
  endToEndId: string;
  protocolo?: number;
  dataTransacao?: string;
  valor: number;
  chave?: string;
  status: InfracaoStatus;
  razao?: string; // why the payer's PSP opened it (what the contract calls `tipo`)
  tipoSituacao?: string;
  tipoFraude?: string;
  comentario?: string;
  defesa?: string;
  justificativaAnalista?: string;
  identificadorTicket?: number[];
  dadosAnalise?: { abertura: string; prazoFinalizacao: string; recebimentoDefesa?: string; finalizacao?: string };
  origem?: Record<string, unknown>;
  destino?: Record<string, unknown>;
  criadoEm: string; // what the contract calls `dataCriacao`
  atualizadoEm?: string;
};
// Efí accepts only `rejeitado` (the merchant contests); accepting is done by not defending.
export type DefesaSolicitada = { analise: 'rejeitado'; justificativa: string };

// What the client returns: the wire object plus its amount in centavos.
export type Devolucao = DevolucaoWire & { amount: number };
// components: componentesValor in centavos (absent parts 0), when it carries `original`. `unreadable`: a listed Pix
// that broke the standard (why), known only by its endToEndId.
export type PixComponents = { original: number; rebate: number; discount: number; fine: number; interest: number };
export type Pix = Omit<PixWire, 'devolucoes'> & {
  amount: number;
  devolucoes?: Devolucao[];
  components?: PixComponents;
  unreadable?: string;
};
export type Cob = Omit<CobGerada, 'pix'> & { amount: number; pix?: Pix[] };
export type CobV = Omit<CobVGerada, 'pix'> & { amount: number; pix?: Pix[] };
export type Envio = Omit<EnvioWire, 'e2eId'> & { amount: number; e2eId: string | null };
export type Infracao = InfracaoWire & { amount: number };
export type PixPage = { paginacao: Paginacao; pix: Pix[] };

// Pix Automático (API Pix 2.9.0: locrec, rec, solicrec, cobr). Only what the service sends and reads is typed.
export type Periodicidade = 'SEMANAL' | 'MENSAL' | 'TRIMESTRAL' | 'SEMESTRAL' | 'ANUAL';
export type PoliticaRetentativa = 'NAO_PERMITE' | 'PERMITE_3R_7D';
export type RecStatus = 'CRIADA' | 'APROVADA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';
export type SolicRecStatus = 'CRIADA' | 'ENVIADA' | 'RECEBIDA' | 'REJEITADA' | 'ACEITA' | 'EXPIRADA' | 'CANCELADA';
export type CobRStatus = 'CRIADA' | 'ATIVA' | 'CONCLUIDA' | 'EXPIRADA' | 'REJEITADA' | 'CANCELADA';
export type TentativaStatus = 'SOLICITADA' | 'AGENDADA' | 'PAGA' | 'CANCELADA' | 'REJEITADA' | 'EXPIRADA';
export type Solicitante = 'PSP_PAGADOR' | 'USUARIO_PAGADOR' | 'PSP_RECEBEDOR' | 'USUARIO_RECEBEDOR';
// PessoaFisicaRecorrencia | PessoaJuridicaRecorrencia (nome <= 140)
export type DevedorRec = { cpf: string; nome: string } | { cnpj: string; nome: string };
// DadosBancariosRecebedor: the receiving account at the PSP (every cobr's recebedor)
export type ContaRecebedor = { agencia?: string; conta: string; tipoConta: 'CORRENTE' | 'POUPANCA' | 'PAGAMENTO' };

// PayloadLocationRecGerada / PayloadLocationRecCompleta: the answer of POST /v2/locrec (no body is sent).
export type LocRec = { id: number; location: string; criacao: string; idRec?: string };

// RecSolicitada as the standard's examples send it (recBody1/recBody2): no idRec (the PSP makes it), the policy as
// politicaRetentativa (the document's RecBase also requires idRec and retentativa; its examples and text do not).
export type RecSolicitada = {
  vinculo: { objeto?: string; contrato: string; devedor: DevedorRec };
  calendario: { dataInicial: string; dataFinal?: string; periodicidade: Periodicidade };
  valor?: { valorRec: string } | { valorMinimoRecebedor: string };
  politicaRetentativa: PoliticaRetentativa;
  loc?: number;
  ativacao?: { dadosJornada: { txid: string } };
};
export type RecRevisada = { status: 'CANCELADA' };

export type Atualizacao<S extends string> = { status: S; data: string };
export type Encerramento = {
  rejeicao?: { codigo: string; descricao: string };
  cancelamento?: { solicitante: Solicitante; codigo: string; descricao: string };
};

// SolicRecSolicitada (solicRecBody1): the journey 1 request to the payer's PSP.
export type SolicRecSolicitada = {
  idRec: string;
  calendario: { dataExpiracaoSolicitacao: string };
  destinatario: { agencia?: string; conta: string; ispbParticipante: string } & ({ cpf: string } | { cnpj: string });
};
export type SolicRec = SolicRecSolicitada & {
  idSolicRec: string;
  status: SolicRecStatus;
  atualizacao: Atualizacao<SolicRecStatus>[];
};

// RecCompleta (GET /v2/rec/{idRec}), RecGerada (POST/PATCH answers), RecCompletaPesquisada (GET /v2/rec items): read
// through parseRec, which also accepts the examples' `nome` for an atualizacao's status.
export type Rec = {
  idRec: string;
  status: RecStatus;
  vinculo?: RecSolicitada['vinculo'];
  calendario?: RecSolicitada['calendario'];
  valor?: { valorRec?: string; valorMinimoRecebedor?: string };
  politicaRetentativa?: PoliticaRetentativa;
  loc?: LocRec;
  atualizacao: Atualizacao<RecStatus>[];
  encerramento?: Encerramento;
  solicitacao?: SolicRec[];
  ativacao?: { tipoJornada?: string; dadosJornada?: { txid?: string } };
  dadosQR?: { jornada?: string; pixCopiaECola?: string };
};

// CobRSolicitada: the body of PUT /v2/cobr/{txid}.
export type CobRSolicitada = {
  idRec: string;
  infoAdicional?: string;
  calendario: { dataDeVencimento: string };
  valor: { original: string };
  ajusteDiaUtil: boolean;
  devedor?: Record<string, string>;
  recebedor: ContaRecebedor;
};
export type CobRRevisada = { status: 'CANCELADA' };

export type Tentativa = {
  dataLiquidacao: string;
  tipo?: 'AGND' | 'NTAG' | 'RIFL';
  status: TentativaStatus;
  endToEndId?: string;
  atualizacao?: Atualizacao<TentativaStatus>[];
  rejeicao?: { codigo: string; descricao: string };
};

// CobRGerada / CobRCompleta / CobRNotification, read through parseCobR; `amount` is valor.original in centavos.
export type CobR = {
  idRec: string;
  txid: string;
  status: CobRStatus;
  calendario: { dataDeVencimento: string; criacao?: string };
  valor: { original: string };
  amount: number;
  politicaRetentativa?: PoliticaRetentativa;
  ajusteDiaUtil?: boolean;
  infoAdicional?: string;
  atualizacao: Atualizacao<CobRStatus>[];
  encerramento?: Encerramento;
  tentativas: Tentativa[];
};
