// Input every route refuses: a non-JSON body, control characters, lone surrogates.
import type { RequestHandler } from 'express';
import { HttpError, ValidationError } from './errors.ts';

// Characters no field accepts: C0 and C1 controls, DEL, and UTF-16 halves without their pair (PostgreSQL and the
// BR Code cannot store them). Free-text fields (MULTILINE) may also hold tab and line breaks.
const FORBIDDEN = /[\p{Cc}\p{Cs}]/u; // any control character, any unpaired surrogate
const FORBIDDEN_MULTILINE = /[^\P{Cc}\t\n\r]|\p{Cs}/u; // the same, except tab and line breaks
const MULTILINE = new Set(['text', 'reason']);
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_DEPTH = 8;
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export const INPUT_MESSAGES = {
  control: 'contém caracteres de controle ou inválidos',
  key: 'nome de campo não permitido',
  depth: 'aninhamento excessivo',
  notObject: 'O corpo da requisição deve ser um objeto JSON',
  contentType: 'Content-Type deve ser application/json',
};

function badString(value: string, field: string): boolean {
  return (MULTILINE.has(field) ? FORBIDDEN_MULTILINE : FORBIDDEN).test(value);
}

// Collects the first problem of every offending field of a parsed JSON value or query object.
function inspect(value: unknown, path: string, depth: number, errors: { field: string; message: string }[]): void {
  if (errors.length >= 20) return;
  if (typeof value === 'string') {
    const field = path.split('.').at(-1) ?? path;
    if (badString(value, field)) errors.push({ field: path, message: `${path} ${INPUT_MESSAGES.control}` });
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  if (depth > MAX_DEPTH) {
    errors.push({ field: path, message: `${path} ${INPUT_MESSAGES.depth}` });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => inspect(item, `${path}[${i}]`, depth + 1, errors));
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = path ? `${path}.${key}` : key;
    if (FORBIDDEN_KEYS.has(key) || FORBIDDEN.test(key)) {
      errors.push({ field: at.replace(/[\p{Cc}\p{Cs}]/gu, '?'), message: INPUT_MESSAGES.key });
      continue;
    }
    inspect(item, at, depth + 1, errors);
  }
}

function hasBody(req: Parameters<RequestHandler>[0]): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

// Runs before the JSON parser: a body must be JSON.
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  if (BODY_METHODS.has(req.method) && hasBody(req) && !req.is('application/json') && !req.is('application/*+json'))
    return next(new HttpError(415, INPUT_MESSAGES.contentType, 'unsupported_media_type'));
  next();
};

// Runs after the JSON parser, before every route: one place refuses input no route can handle (spec: 400 with field
// errors), so a route's own rules only deal with meaning. PATCH and PUT need an object; POST without a body is
// validated as an empty object, so the route's rules name the missing fields.
export const inputGuard: RequestHandler = (req, _res, next) => {
  const errors: { field: string; message: string }[] = [];
  let path: string;
  try {
    path = decodeURIComponent(req.path);
  } catch {
    return next(new ValidationError([{ field: 'path', message: `path ${INPUT_MESSAGES.control}` }]));
  }
  if (badString(path, 'path')) errors.push({ field: 'path', message: `path ${INPUT_MESSAGES.control}` });
  inspect(req.query, '', 0, errors);
  if (BODY_METHODS.has(req.method)) {
    const body: unknown = req.body;
    const empty = !hasBody(req);
    if (req.method === 'POST' && empty)
      req.body = {}; // a POST whose rules name the fields it lacks, or one that reads none
    else if (empty || typeof body !== 'object' || body === null || Array.isArray(body))
      return next(
        new ValidationError([{ field: 'body', message: INPUT_MESSAGES.notObject }], INPUT_MESSAGES.notObject),
      );
    else inspect(body, '', 0, errors);
  }
  if (errors.length) return next(new ValidationError(errors));
  next();
};
