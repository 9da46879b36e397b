// The HTTP sender of deliveries: one POST, its outcome, its limits.
import got, { type OptionsInit } from 'got';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import { ipLiteral, isPublicAddress, NOT_PUBLIC, publicOnlyLookup } from './url-policy.ts';

export const RESPONSE_LIMIT_BYTES = 4096;
export const USER_AGENT = 'pix-payments-webhooks/1.0';

// The outcome of one POST: statusCode is null when no HTTP answer came back (response then says why).
export type AttemptResult = {
  statusCode: number | null;
  response: string;
  success: boolean;
  retryAfterSeconds: number | null;
};
export type Sender = {
  post: (url: string, headers: Record<string, string>, body: string) => Promise<AttemptResult>;
  close: () => void;
};

// Seconds from a Retry-After header (delta-seconds or HTTP-date); only 429 and 503 carry a meaningful one.
export function retryAfterSeconds(
  status: number,
  header: string | string[] | undefined,
  now = Date.now(),
): number | null {
  if ((status !== 429 && status !== 503) || typeof header !== 'string') return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value);
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, (at - now) / 1000);
}

// Text safe to store: at most 4 KB of UTF-8 (a character cut at the limit is dropped, not replaced), without the NUL
// bytes PostgreSQL text refuses.
const toText = (chunks: Buffer[]) =>
  new TextDecoder()
    .decode(Buffer.concat(chunks).subarray(0, RESPONSE_LIMIT_BYTES), { stream: true })
    .replaceAll('\u0000', '');

const REFUSED = {
  https: 'Destino recusado: HTTPS é obrigatório',
  address: 'Destino recusado: o host resolve para um endereço privado, de loopback ou link-local',
  url: 'Destino recusado: URL inválida',
};
const refusal = (response: string): AttemptResult => ({
  statusCode: null,
  response,
  success: false,
  retryAfterSeconds: null,
});

function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string };
  if (e.name === 'TimeoutError') return `Tempo esgotado: o destino não respondeu em ${timeoutMs} ms`;
  if (e.code === NOT_PUBLIC || /is not allowed/.test(e.message ?? '')) return REFUSED.address;
  return `Falha de conexão${e.code ? ` (${e.code})` : ''}: ${e.message ?? String(err)}`.slice(0, RESPONSE_LIMIT_BYTES);
}

/**
 * POSTs with got (the project's HTTP client): one keep-alive pool per host inside each agent, no redirects, no got
 * retries (the daemon owns the schedule).
 * In production only https URLs are sent, and only to public addresses (url-policy.ts): an IP literal is checked here,
 * a host name at every connection after its DNS resolution (publicOnlyLookup); request-filtering-agent checks again.
 * `maxSockets` is the daemon's whole concurrency: a POST never queues inside the agent, where its timeout would run
 * before it was sent; and every socket stays pooled, since a closed one costs a new TCP (and TLS) handshake per POST.
 */
export function createSender({
  production,
  timeoutMs,
  maxSockets = 64,
  resolve,
}: {
  production: boolean;
  timeoutMs: number;
  maxSockets?: number;
  resolve?: Parameters<typeof publicOnlyLookup>[0]; // the DNS resolution (default dns.lookup), for tests
}): Sender {
  const agentOptions = {
    keepAlive: true,
    maxSockets,
    maxFreeSockets: maxSockets,
    scheduling: 'lifo' as const,
    allowPrivateIPAddress: !production,
  };
  const publicLookup = publicOnlyLookup(resolve) as unknown as NonNullable<OptionsInit['dnsLookup']>;
  const agent = {
    http: new RequestFilteringHttpAgent(agentOptions),
    https: new RequestFilteringHttpsAgent(agentOptions),
  };

  async function post(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    let target: URL;
    try {
      target = new URL(url);
    } catch {
      return refusal(REFUSED.url);
    }
    if (production) {
      // parsed, so an https URL stored before URLs were normalised ("HTTPS://...") is recognised
      if (target.protocol !== 'https:') return refusal(REFUSED.https);
      const literal = ipLiteral(target);
      if (literal && !isPublicAddress(literal)) return refusal(REFUSED.address);
    }
    const stream = got.stream.post(url, {
      body,
      headers: { ...headers, 'content-type': 'application/json', 'user-agent': USER_AGENT },
      agent,
      ...(production ? { dnsLookup: publicLookup } : {}),
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: timeoutMs },
    });
    // errors reach the loop below; this only keeps a late socket error from crashing the process
    stream.on('error', () => {});
    let answer: { statusCode: number; headers: Record<string, string | string[] | undefined> } | undefined;
    stream.once('response', (res: typeof answer) => {
      answer = res;
    });
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      // Read at most 4 KB; leaving the loop early destroys the request, so a huge body costs nothing more.
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_LIMIT_BYTES) break;
      }
    } catch (err) {
      // The verdict is the status line: a 2xx that then stalls its body still counts as received.
      if (!answer)
        return { statusCode: null, response: describe(err, timeoutMs), success: false, retryAfterSeconds: null };
    }
    if (!answer)
      return { statusCode: null, response: 'Sem resposta do destino', success: false, retryAfterSeconds: null };
    const statusCode = answer.statusCode;
    return {
      statusCode,
      response: toText(chunks),
      success: statusCode >= 200 && statusCode < 300,
      retryAfterSeconds: retryAfterSeconds(statusCode, answer.headers['retry-after'] as string | undefined),
    };
  }

  return {
    post,
    close: () => {
      agent.http.destroy();
      agent.https.destroy();
    },
  };
}
