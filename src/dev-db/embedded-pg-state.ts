// Where `npm start` left its embedded PostgreSQL, so that `npm run ops` and `npm run migrate` find the same one: a
// record in the project (`.data/embedded-pg.json`: data directory, port) written at each start with the default data
// directory, and PostgreSQL's own `postmaster.pid` in the data directory (its pid and port while it runs).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const EMBEDDED_DATABASE = 'pix';

export type EmbeddedRecord = { dataDir: string; port: number; database: string; pid: number; startedAt: string };

export const recordPath = (root = PROJECT_ROOT) => join(root, '.data', 'embedded-pg.json');

export function writeRecord(record: EmbeddedRecord, root = PROJECT_ROOT): void {
  const path = recordPath(root);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(`${path}.tmp`, path); // a reader never sees half a record
}

export function readRecord(root = PROJECT_ROOT): EmbeddedRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(recordPath(root), 'utf8')) as Partial<EmbeddedRecord>;
    return typeof r.dataDir === 'string' && Number.isInteger(r.port) ? (r as EmbeddedRecord) : undefined;
  } catch {
    return undefined; // none yet, or unreadable: as if npm start had never run here
  }
}

// The server running on `dataDir`, from its postmaster.pid (removed at a clean shutdown; a crash leaves it, so the pid
// is checked). `unknown`: the file exists but cannot be read by this user.
export function runningServer(dataDir: string): { pid: number; port: number } | 'unknown' | undefined {
  let lines: string[];
  try {
    lines = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EACCES' ? 'unknown' : undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return undefined;
  }
  return { pid, port };
}
