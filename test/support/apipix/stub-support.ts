// Small pieces shared by the PSP stub's handlers: replies, problem+json, ids, pagination.
import { randomBytes } from 'node:crypto';
import type { Paginacao, Violacao } from '../../../src/acquirer/apipix/types.ts';

export type Reply = { status: number; body?: unknown; headers?: Record<string, string> };
export type Query = URLSearchParams;

export const VALOR = /^\d{1,10}\.\d{2}$/;
export const ID35 = /^[a-zA-Z0-9]{1,35}$/;

export function ok(body: unknown, status = 200): Reply {
  return { status, body };
}

// The standard's error body: type https://pix.bcb.gov.br/api/v2/error/<Name>, title, status, detail, violacoes.
export function problem(status: number, name: string, detail: string, violacoes?: Violacao[]): Reply {
  const titles: Record<number, string> = {
    400: 'Requisição inválida.',
    401: 'Não autorizado.',
    404: 'Não encontrado.',
  };
  return {
    status,
    headers: { 'content-type': 'application/problem+json' },
    body: {
      type: `https://pix.bcb.gov.br/api/v2/error/${name}`,
      title: titles[status] ?? 'Erro.',
      status,
      detail,
      violacoes,
    },
  };
}

export const notFound = (what: string) => problem(404, 'NaoEncontrado', `${what} não encontrado(a).`);
export const invalid = (name: string, propriedade: string, razao: string) =>
  problem(400, name, razao, [{ razao, propriedade }]);

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export function alnum(length: number): string {
  return Array.from(randomBytes(length), (b) => ALNUM[b % ALNUM.length]).join('');
}

// EndToEndId / RtrId: a letter, the PSP's ISPB, yyyyMMddHHmm (UTC), 11 random characters: 32 in all.
export function spiId(prefix: 'E' | 'D', at: Date): string {
  const stamp = at.toISOString().replace(/\D/g, '').slice(0, 12);
  return `${prefix}12345678${stamp}${alnum(11)}`;
}

export function asObject(body: unknown): Record<string, unknown> {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

// inicio/fim are required RFC 3339 instants in every listing of the standard.
export function range(q: Query): { inicio: string; fim: string; from: number; to: number } | Reply {
  const inicio = q.get('inicio') ?? '';
  const fim = q.get('fim') ?? '';
  const from = Date.parse(inicio);
  const to = Date.parse(fim);
  if (Number.isNaN(from)) return invalid('ParametrosConsultaInvalidos', 'inicio', 'inicio deve ser uma data RFC 3339.');
  if (Number.isNaN(to)) return invalid('ParametrosConsultaInvalidos', 'fim', 'fim deve ser uma data RFC 3339.');
  return { inicio, fim, from, to };
}

// `paginacao.paginaAtual` (from 0) and `paginacao.itensPorPagina` (1..1000, default 100), as the standard names them.
export function paginate<T>(items: T[], q: Query): { paginacao: Paginacao; page: T[] } | Reply {
  const paginaAtual = Number(q.get('paginacao.paginaAtual') ?? 0);
  const itensPorPagina = Number(q.get('paginacao.itensPorPagina') ?? 100);
  if (!Number.isInteger(paginaAtual) || paginaAtual < 0)
    return invalid('ParametrosConsultaInvalidos', 'paginacao.paginaAtual', 'paginaAtual inválida.');
  if (!Number.isInteger(itensPorPagina) || itensPorPagina < 1 || itensPorPagina > 1000) {
    return invalid(
      'ParametrosConsultaInvalidos',
      'paginacao.itensPorPagina',
      'itensPorPagina deve estar entre 1 e 1000.',
    );
  }
  const quantidadeDePaginas = Math.max(1, Math.ceil(items.length / itensPorPagina));
  const page = items.slice(paginaAtual * itensPorPagina, (paginaAtual + 1) * itensPorPagina);
  return {
    paginacao: { paginaAtual, itensPorPagina, quantidadeDePaginas, quantidadeTotalDeItens: items.length },
    page,
  };
}

export const isReply = (x: unknown): x is Reply =>
  typeof x === 'object' && x !== null && 'status' in x && typeof (x as Reply).status === 'number';
