import { readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';

// A process as /proc knows it: its pid and start time, so a reused pid is not taken for the same process.
export type Proc = { pid: number; start: string; cmd: string };

function stat(pid: number): { ppid: number; state: string; start: string; cmd: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' '); // fields from the 3rd (state) on
    const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    return { state: fields[0], ppid: Number(fields[1]), start: fields[19], cmd };
  } catch {
    return undefined; // gone meanwhile
  }
}

// Every live descendant of `root`, following the ppid chains of /proc.
export function descendants(root: number): Proc[] {
  const children = new Map<number, number[]>();
  const procs = new Map<number, Proc>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    const s = Number.isInteger(pid) ? stat(pid) : undefined;
    if (!s || s.state === 'Z') continue;
    procs.set(pid, { pid, start: s.start, cmd: s.cmd });
    children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  }
  const found: Proc[] = [];
  const queue = [...(children.get(root) ?? [])];
  while (queue.length) {
    const pid = queue.shift()!;
    if (procs.has(pid)) found.push(procs.get(pid)!);
    queue.push(...(children.get(pid) ?? []));
  }
  return found;
}

// Still running (a zombie has exited: it only waits to be reaped).
export function alive(p: Proc): boolean {
  const s = stat(p.pid);
  return !!s && s.start === p.start && s.state !== 'Z';
}

// Samples the process tree under `root` until stop() is called; returns everything it ever saw.
export function recordDescendants(root: number, everyMs = 100) {
  const seen = new Map<string, Proc>();
  const sample = () => descendants(root).forEach((p) => seen.set(`${p.pid}:${p.start}`, p));
  sample();
  const timer = setInterval(sample, everyMs);
  return {
    sample,
    stop() {
      clearInterval(timer);
      sample();
      return [...seen.values()];
    },
  };
}

export async function waitUntilGone(procs: Proc[], timeoutMs: number): Promise<Proc[]> {
  const deadline = Date.now() + timeoutMs;
  while (procs.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  return procs.filter(alive);
}

export async function freePort(): Promise<number> {
  const s = createServer().listen(0, '127.0.0.1');
  await once(s, 'listening');
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

// A port whose next one is free too (npm start gives the webhook daemon METRICS_PORT + 1), both checked on every
// interface as the processes will listen.
export async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if ((await portFree(port, '::')) && (await portFree(port + 1, '::'))) return port;
  }
}

// Whether nothing listens on 127.0.0.1:port any more.
export async function portFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  const s = createServer();
  try {
    s.listen(port, host);
    await once(s, 'listening');
    return true;
  } catch {
    return false;
  } finally {
    s.close();
  }
}
