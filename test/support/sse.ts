import { checkResponse } from './openapi-check.ts';

// A Server-Sent Events client over fetch, parsing the stream as EventSource does (WHATWG HTML, "Parsing an event
// stream"), and keeping everything it saw for the test to assert on.
export type SseEvent = { id: string; event: string; data: string };

export type SseClient = {
  status: number;
  headers: Headers;
  body: any; // the JSON error body of a refused stream
  events: SseEvent[];
  lastEventId: string; // as EventSource keeps it: set by every `id:` line, events or not
  comments: { text: string; at: number }[];
  ended: Promise<void>; // the server ended the stream or the connection broke
  // resolves once `n` events have arrived in all (or rejects after timeoutMs)
  waitForEvents: (n: number, timeoutMs?: number) => Promise<SseEvent[]>;
  close: () => void;
};

export async function openSse(
  baseUrl: string,
  path: string,
  token: string,
  headers: Record<string, string> = {},
): Promise<SseClient> {
  const abort = new AbortController();
  const res = await fetch(baseUrl + path, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...headers },
    signal: abort.signal,
  });
  const contentType = res.headers.get('content-type');
  let body: any;
  if (res.status !== 200) {
    const text = await res.text();
    body = JSON.parse(text);
  }
  checkResponse({ method: 'GET', url: path, status: res.status, contentType, body });
  const client: SseClient = {
    status: res.status,
    headers: res.headers,
    body,
    events: [],
    lastEventId: '',
    comments: [],
    ended: Promise.resolve(),
    waitForEvents: async (n, timeoutMs = 10_000) => {
      const until = Date.now() + timeoutMs;
      while (client.events.length < n) {
        if (Date.now() > until) throw new Error(`waited ${timeoutMs} ms for ${n} events, got ${client.events.length}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return client.events.slice(0, n);
    },
    close: () => abort.abort(),
  };
  if (res.status !== 200 || !res.body) return client;

  let buffer = '';
  let data: string[] = [];
  let event = '';
  let id = client.lastEventId;
  const line = (l: string) => {
    if (l === '') {
      client.lastEventId = id;
      if (data.length) client.events.push({ id, event: event || 'message', data: data.join('\n') });
      data = [];
      event = '';
      return;
    }
    if (l.startsWith(':')) {
      client.comments.push({ text: l.slice(1).trim(), at: Date.now() });
      return;
    }
    const colon = l.indexOf(':');
    const field = colon < 0 ? l : l.slice(0, colon);
    let value = colon < 0 ? '' : l.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
  };
  const decoder = new TextDecoder();
  client.ended = (async () => {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        const lines = buffer.split(/\r\n|\n|\r/);
        buffer = lines.pop()!;
        lines.forEach(line);
      }
    } catch {
      /* aborted, or the connection broke */
    }
  })();
  return client;
}
