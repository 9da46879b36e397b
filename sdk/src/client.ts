import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths } from './openapi.ts';

// The typed client: every path, parameter, body and response of docs/openapi.yaml (generated into openapi.ts).
export type PixClient = Client<paths>;

export type PixClientOptions = Omit<ClientOptions, 'baseUrl' | 'headers'> & {
  // The API's base address, e.g. http://localhost:3000 (no /v1: paths carry it).
  baseUrl: string;
  // A JWT from POST /v1/auth/login or an API key `lk_…`; omit it for register and login.
  token?: string;
  // Sent with every request (a per-request `headers` adds to them).
  headers?: Record<string, string>;
};

export function createPixClient({ baseUrl, token, headers, ...options }: PixClientOptions): PixClient {
  return createClient<paths>({
    ...options,
    baseUrl: baseUrl.replace(/\/+$/, ''), // paths start with a slash
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
  });
}
