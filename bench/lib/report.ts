import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { root } from './stack.ts';

export type Row = { scenario: string; metric: string; value: number | string; target?: string; pass?: boolean };

const resultsFile = join(root, 'bench/results/latest.json');

export function machine(pgVersion: string) {
  return {
    cores: cpus().length,
    cpu: cpus()[0]?.model,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    postgres: pgVersion,
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export const round = (n: number, d = 1) => Math.round(n * 10 ** d) / 10 ** d;

// Prints the rows as a table and merges them, by scenario, into bench/results/latest.json.
export function report(scenario: string, rows: Row[], extra: Record<string, unknown> = {}): void {
  const width = (k: keyof Row) => Math.max(k.length, ...rows.map((r) => String(r[k] ?? '').length));
  const cols: (keyof Row)[] = ['scenario', 'metric', 'value', 'target', 'pass'];
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  console.log(line(cols.map((c) => c.padEnd(width(c)))));
  console.log(line(cols.map((c) => '-'.repeat(width(c)))));
  for (const r of rows) console.log(line(cols.map((c) => String(r[c] ?? (c === 'pass' ? '' : '')).padEnd(width(c)))));
  mkdirSync(join(root, 'bench/results'), { recursive: true });
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(readFileSync(resultsFile, 'utf8'));
  } catch {
    /* first run */
  }
  all[scenario] = { at: new Date().toISOString(), rows, ...extra };
  writeFileSync(resultsFile, JSON.stringify(all, null, 2));
}
