// Domain errors carry the HTTP status they map to; the error middleware renders them.
export class HttpError extends Error {
  status: number;
  errors?: { field: string; message: string }[];
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export class ValidationError extends HttpError {
  constructor(errors: { field: string; message: string }[], message = 'Dados inválidos') {
    super(400, message);
    this.errors = errors;
  }
}

export class UnauthorizedError extends HttpError {
  constructor(message: string) {
    super(401, message);
  }
}

export class ForbiddenError extends HttpError {
  constructor(message: string) {
    super(403, message);
  }
}

export class NotFoundError extends HttpError {
  constructor(message = 'Recurso não encontrado') {
    super(404, message);
  }
}

export class ConflictError extends HttpError {
  constructor(message: string) {
    super(409, message);
  }
}

export class BusinessRuleError extends HttpError {
  constructor(message: string) {
    super(422, message);
  }
}

// 429 with Retry-After: a limit of the service's own (a webhook's test sends), not the general request limits.
export class TooManyRequestsError extends HttpError {
  retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super(429, message);
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
