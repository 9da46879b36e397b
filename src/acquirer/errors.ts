// The acquirer port's errors: unavailable (retry the same request) or refused (decided, never retried).
import { HttpError } from '../platform/errors.ts';

// The PSP did not answer (down, timeout, 5xx): nothing was decided there, the same request may be retried.
export class AcquirerUnavailableError extends HttpError {
  constructor(message = 'Adquirente indisponível no momento; tente novamente em instantes') {
    super(503, message, 'acquirer_unavailable');
  }
}

// The PSP answered and refused: retrying the same request will not help.
export class AcquirerRefusedError extends HttpError {
  constructor(message = 'O adquirente recusou a operação') {
    super(502, message, 'acquirer_refused');
  }
}
