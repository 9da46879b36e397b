// What a resource helper throws for a refusal of the API (any non-2xx after its retries) or a network that never
// answered (`status` 0, `code` 'network_error', the last failure as `cause`).
export class PixApiError extends Error {
  status: number;
  // The API's stable identifier of the kind of error (`not_found`, `validation_failed`…); `http_<status>` when the
  // body has none (an older API, or a proxy's page), `network_error` when no response came.
  code: string;
  // Per-field problems of a 400, as the API lists them (`[{ field, message }]`), else an empty array.
  errors: { field?: string; message: string; [key: string]: unknown }[];
  // The x-request-id of the response (quote it to support), undefined when no response came.
  requestId: string | undefined;
  constructor(
    init: { status: number; code: string; message: string; errors?: PixApiError['errors']; requestId?: string },
    options?: ErrorOptions,
  ) {
    super(init.message, options);
    this.name = 'PixApiError';
    this.status = init.status;
    this.code = init.code;
    this.errors = init.errors ?? [];
    this.requestId = init.requestId;
  }

  // From the API's error body `{ message, code?, errors? }` (anything else: the status text) and its response.
  static from(response: Response, body: unknown): PixApiError {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    const text = typeof body === 'string' && body ? body : response.statusText || `HTTP ${response.status}`;
    return new PixApiError({
      status: response.status,
      code: typeof b.code === 'string' ? b.code : `http_${response.status}`,
      message: typeof b.message === 'string' ? b.message : text,
      errors: Array.isArray(b.errors) ? (b.errors as PixApiError['errors']) : [],
      requestId: response.headers.get('x-request-id') ?? undefined,
    });
  }
}
