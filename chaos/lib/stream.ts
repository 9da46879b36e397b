// A merchant's long-lived client of GET /v1/events/stream during the chaos: it connects while the load runs, is cut
// off by the chaos (and cuts itself off now and then), and resumes each time with Last-Event-ID, as an EventSource or
// the SDK's `listen` would. At the end it must have seen every event of its merchant since it connected, once each,
// in the stream's (commit) order.
import { query } from './cluster.ts';
import type { Check } from './checks.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export type StreamClient = ReturnType<typeof startStreamClient>;

export function startStreamClient(base: string, apiKey: string, merchantId: string, name: string) {
  const seen: string[] = [];
  let lastEventId = ''; // as EventSource keeps it: every `id:` line sets it
  let startAfter: string | null | undefined; // the id announced by the first connection (null: the merchant had none)
  let connections = 0;
  let refusals = 0;
  let stopping = false;
  let current: AbortController | null = null;

  async function once(): Promise<void> {
    const abort = new AbortController();
    current = abort;
    const res = await fetch(`${base}/v1/events/stream`, {
      headers: { authorization: `Bearer ${apiKey}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
      signal: abort.signal,
    });
    if (res.status !== 200 || !res.body) {
      refusals++;
      await res.body?.cancel();
      return;
    }
    connections++;
    let buffer = '';
    let id = lastEventId;
    let data = false;
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        if (line === '') {
          // the first id it learns: the announced latest event, or (the merchant had none) its first event
          if (startAfter === undefined && (data || id)) startAfter = data ? null : id;
          lastEventId = id;
          if (data) seen.push(id);
          data = false;
        } else if (line.startsWith('id: ')) id = line.slice(4);
        else if (line.startsWith('data: ')) data = true;
      }
    }
  }

  const running = (async () => {
    while (!stopping) {
      try {
        await once();
      } catch {
        /* aborted, refused (the API restarting), or the connection broke: resume */
      }
      if (!stopping) await sleep(300);
    }
  })();

  return {
    name,
    seen,
    // cut the connection; the loop resumes with Last-Event-ID
    disconnect: () => current?.abort(),
    get connections() {
      return connections;
    },
    // Waits until it has caught up with every positioned event of its merchant (or the deadline), then stops and says
    // what it saw against the database.
    async finish(url: string, deadlineMs: number): Promise<Check[]> {
      const expected = async () => {
        const rows = await query<{ event_id: string }>(
          url,
          `select event_id from event_stream
            where merchant_id = $1 and seq > coalesce((select seq from event_stream where event_id = $2), 0)
            order by seq`,
          [merchantId, startAfter ?? null],
        );
        return rows.map((r) => r.event_id);
      };
      const until = Date.now() + deadlineMs;
      let want = await expected();
      while (seen.length < want.length && Date.now() < until) {
        await sleep(500);
        want = await expected();
      }
      stopping = true;
      current?.abort();
      await running;
      const unique = new Set(seen).size;
      const inOrder = seen.length === want.length && seen.every((id, i) => id === want[i]);
      const outOfIdOrder = seen.filter((id, i) => i > 0 && id < seen[i - 1]).length;
      return [
        {
          check: `${name}: every event since it connected, once, in commit order`,
          value: `${seen.length}/${want.length} (${seen.length - unique} twice)`,
          ok: inOrder && unique === seen.length && startAfter !== undefined,
        },
        {
          check: `${name}: connections (resumed with Last-Event-ID) / refused`,
          value: `${connections} / ${refusals}`,
          ok: connections >= 2,
        },
        {
          check: `${name}: events that came after a younger id (commit order != id order)`,
          value: outOfIdOrder,
          ok: true,
        },
      ];
    },
  };
}
