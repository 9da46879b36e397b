// The PSP stub's Efí-specific calls in memory: Pix sent out (envios) and MED infrações with their defesas.
import { randomUUID } from 'node:crypto';
import { toWire } from '../../../src/acquirer/apipix/money.ts';
import {
  asObject,
  ID35,
  invalid,
  isReply,
  notFound,
  ok,
  paginate,
  problem,
  range,
  spiId,
  VALOR,
  type Query,
  type Reply,
} from './stub-support.ts';
import type { DuplicatePut } from './stub-pix.ts';
import type { EnvioStatus, EnvioWire, InfracaoStatus, InfracaoWire } from '../../../src/acquirer/apipix/types.ts';

// Decides an envio's fate as soon as it is accepted (the PUT still answers EM_PROCESSAMENTO, as Efí's does).
export type EnvioOutcome = (envio: EnvioWire) => EnvioStatus;
export type OpenInfracaoInput = {
  endToEndId: string;
  amount: number;
  razao?: string;
  tipoSituacao?: string;
  prazoDias?: number;
};

export function createEfiState(opts: {
  pixKey: string;
  duplicatePut: DuplicatePut;
  envioOutcome?: EnvioOutcome;
  now: () => Date;
}) {
  const envios = new Map<string, EnvioWire>();
  const infracoes = new Map<string, InfracaoWire>();

  // What GET /v2/gn/pix/enviados/id-envio/{idEnvio} answers (the SDK's PixSendDetailResponse).
  const detail = (e: EnvioWire) => ({
    endToEndId: e.e2eId,
    idEnvio: e.idEnvio,
    valor: e.valor,
    chave: e.chave,
    status: e.status,
    infoPagador: e.infoPagador,
    horario: e.horario,
    favorecido: e.favorecido,
  });

  function putEnvio(idEnvio: string, body: unknown): Reply {
    if (!ID35.test(idEnvio))
      return invalid('EnvioInvalido', 'idEnvio', 'idEnvio deve ter de 1 a 35 caracteres alfanuméricos.');
    const b = asObject(body);
    const pagador = asObject(b.pagador);
    const favorecido = asObject(b.favorecido);
    if (!VALOR.test(String(b.valor)) || b.valor === '0.00')
      return invalid('EnvioInvalido', 'valor', 'valor não respeita o schema.');
    if (pagador.chave !== opts.pixKey)
      return invalid('EnvioInvalido', 'pagador.chave', 'A chave do pagador não pertence à conta.');
    if (typeof favorecido.chave !== 'string' || !favorecido.chave)
      return invalid('EnvioInvalido', 'favorecido.chave', 'Chave do favorecido ausente.');
    const existing = envios.get(idEnvio);
    if (existing) {
      // The same idEnvio is never sent twice, whatever the body says.
      const same = existing.valor === b.valor && existing.favorecido?.chave === favorecido.chave;
      if (same && opts.duplicatePut === 'replay') return ok(answer(existing), 201);
      return problem(409, 'EnvioDuplicado', 'Já existe um envio com o idEnvio informado.');
    }
    const envio: EnvioWire = {
      idEnvio,
      e2eId: spiId('E', opts.now()),
      valor: String(b.valor),
      horario: { solicitacao: opts.now().toISOString() },
      status: 'EM_PROCESSAMENTO',
      chave: opts.pixKey,
      infoPagador: pagador.infoPagador as string | undefined,
      favorecido: { ...favorecido },
    };
    envios.set(idEnvio, envio);
    const reply = ok(answer(envio), 201);
    if (opts.envioOutcome) settleEnvio(idEnvio, opts.envioOutcome(envio));
    return reply;
  }

  // The PUT's answer: { idEnvio, e2eId, valor, horario, status } (Efí's example).
  const answer = (e: EnvioWire) => ({
    idEnvio: e.idEnvio,
    e2eId: e.e2eId,
    valor: e.valor,
    horario: { ...e.horario },
    status: e.status,
  });

  function getEnvio(idEnvio: string): Reply {
    const e = envios.get(idEnvio);
    return e ? ok(detail(e)) : notFound('Envio');
  }

  function listInfracoes(q: Query): Reply {
    const r = range(q);
    if (isReply(r)) return r;
    const found = [...infracoes.values()]
      .filter((i) => Date.parse(i.criadoEm) >= r.from && Date.parse(i.criadoEm) <= r.to)
      .sort((a, b) => Date.parse(a.criadoEm) - Date.parse(b.criadoEm));
    const pg = paginate(found, q);
    if (isReply(pg)) return pg;
    return ok({ parametros: { inicio: r.inicio, fim: r.fim, paginacao: pg.paginacao }, infracoes: pg.page });
  }

  function postDefesa(idInfracao: string, body: unknown): Reply {
    const infracao = infracoes.get(idInfracao);
    if (!infracao) return notFound('Infração');
    const b = asObject(body);
    if (b.analise !== 'rejeitado') return invalid('DefesaInvalida', 'analise', 'analise deve ser "rejeitado".');
    if (typeof b.justificativa !== 'string' || !b.justificativa.trim())
      return invalid('DefesaInvalida', 'justificativa', 'Justificativa ausente.');
    if (infracao.status !== 'ABERTA')
      return problem(400, 'DefesaInvalida', `A infração está ${infracao.status} e não aceita defesa.`);
    const at = opts.now().toISOString();
    Object.assign(infracao, { status: 'EM_DEFESA', defesa: b.justificativa, atualizadoEm: at });
    infracao.dadosAnalise = { ...infracao.dadosAnalise!, recebimentoDefesa: at };
    return { status: 204 };
  }

  // Control: the SPI completes (or refuses) an envio.
  function settleEnvio(idEnvio: string, status: EnvioStatus): EnvioWire {
    const e = envios.get(idEnvio);
    if (!e) throw new Error(`no envio ${idEnvio}`);
    e.status = status;
    if (status === 'REALIZADO') e.horario.liquidacao = opts.now().toISOString();
    return e;
  }

  // Control: the payer's PSP opens a MED infraction on a Pix we received. `valor` goes out as a JSON number, as Efí's.
  function openInfracao(input: OpenInfracaoInput): InfracaoWire {
    const at = opts.now();
    const infracao: InfracaoWire = {
      idInfracao: randomUUID(),
      endToEndId: input.endToEndId,
      protocolo: infracoes.size + 1,
      dataTransacao: at.toISOString(),
      valor: Number(toWire(input.amount)),
      chave: opts.pixKey,
      status: 'ABERTA',
      razao: input.razao ?? 'Transação não reconhecida pelo pagador.',
      tipoSituacao: input.tipoSituacao ?? 'golpe',
      identificadorTicket: [],
      dadosAnalise: {
        abertura: at.toISOString(),
        prazoFinalizacao: new Date(at.getTime() + (input.prazoDias ?? 7) * 86_400_000).toISOString(),
      },
      criadoEm: at.toISOString(),
      atualizadoEm: at.toISOString(),
    };
    infracoes.set(infracao.idInfracao, infracao);
    return infracao;
  }

  // Control: the analysis ends (ACEITA, REJEITADA) or Efí cancels it (CANCELADA_EFI).
  function setInfracaoStatus(idInfracao: string, status: InfracaoStatus): InfracaoWire {
    const infracao = infracoes.get(idInfracao);
    if (!infracao) throw new Error(`no infração ${idInfracao}`);
    const at = opts.now().toISOString();
    Object.assign(infracao, { status, atualizadoEm: at });
    if (status !== 'ABERTA' && status !== 'EM_DEFESA')
      infracao.dadosAnalise = { ...infracao.dadosAnalise!, finalizacao: at };
    return infracao;
  }

  return {
    envios,
    infracoes,
    putEnvio,
    getEnvio,
    listInfracoes,
    postDefesa,
    settleEnvio,
    openInfracao,
    setInfracaoStatus,
  };
}
