import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './openapi.ts';
import { resources, type PixResources } from './resources.ts';
import type { RetryOptions } from './retry.ts';

// The typed client: every path, parameter, body and response of docs/openapi.yaml (generated into openapi.ts).
export type PixClient = Client<paths>;

// The typed client (`pix.GET`, `pix.POST`…, the escape hatch) with the resource helpers (`pix.charges.create`…).
export type Pix = PixClient & PixResources;

export type PixClientOptions = Omit<ClientOptions, 'baseUrl' | 'headers'> &
  RetryOptions & {
    // The API's base address, e.g. http://localhost:3000 (no /v1: paths carry it).
    baseUrl: string;
    // A JWT from POST /v1/auth/login or an API key `lk_…`; omit it for register and login.
    token?: string;
    // Sent with every request (a per-request `headers` adds to them).
    headers?: Record<string, string>;
  };

export function createPixClient({
  baseUrl,
  token,
  headers,
  maxRetries,
  retryBaseMs,
  retryMaxMs,
  ...options
}: PixClientOptions): Pix {
  const base = baseUrl.replace(/\/+$/, ''); // paths start with a slash
  const client = createClient<paths>({
    ...options,
    baseUrl: base,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });
  return Object.assign(
    client,
    resources(client, { baseUrl: base, token: token ?? '' }, { maxRetries, retryBaseMs, retryMaxMs }),
  );
}
