// The domain errors and the HTTP statuses and codes they map to.
import type { ErrorCode } from './error-codes.ts';

// Domain errors carry the HTTP status they map to and their `code` (error-codes.ts); the error middleware renders
// them. The generic kinds have their code by default; a conflict or a business rule names its own.
export class HttpError extends Error {
  status: number;
  code: ErrorCode;
  errors?: { field: string; message: string }[];
  constructor(status: number, message: string, code: ErrorCode) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export class ValidationError extends HttpError {
  constructor(
    errors: { field: string; message: string }[],
    message = 'Dados inválidos',
    code: ErrorCode = 'validation_failed',
  ) {
    super(400, message, code);
    this.errors = errors;
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message: string, code: ErrorCode = 'unauthenticated') {
    super(401, message, code);
  }
}

export class ForbiddenError extends HttpError {
  constructor(message: string, code: ErrorCode = 'forbidden') {
    super(403, message, code);
  }
}

export class NotFoundError extends HttpError {
  constructor(message = 'Recurso não encontrado', code: ErrorCode = 'not_found') {
    super(404, message, code);
  }
}

export class ConflictError extends HttpError {
  constructor(message: string, code: ErrorCode) {
    super(409, message, code);
  }
}

export class BusinessRuleError extends HttpError {
  constructor(message: string, code: ErrorCode) {
    super(422, message, code);
  }
}

// 429 with Retry-After: a limit of the service's own (a webhook's test sends), not the general request limits.
export class TooManyRequestsError extends HttpError {
  retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number, code: ErrorCode) {
    super(429, message, code);
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterSeconds));
  }
}

export const AUTH_MESSAGES = {
  missingHeader: 'Cabeçalho de autorização ausente',
  invalidToken: 'Token inválido ou expirado',
  invalidApiKey: 'Chave de API inválida',
  inactiveApiKey: 'Chave de API inativa',
  blocked: 'Sua conta está inativa',
  jwtOnly: 'Esta rota exige login com JWT',
  badCredentials: 'Credenciais inválidas',
  merchantNotFound: 'Merchant não encontrado',
} as const;
