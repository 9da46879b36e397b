// The guides' walkthroughs, run as a reader runs them: every ```sh doctest block of README.md, then of
// docs/integrating.md, then of docs/recurring.md (Pix Automático), in order, in one bash session, against a real API, worker and webhook daemon, with `npm run -s
// ops` on the same database. Each block must exit 0, and each of its `# <output>` lines (a comment that is JSON: an
// object, an array, a string, a number, a boolean) must be printed by that block, in that order.
import test from 'ava';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startBackground, startTestApp, type TestApp } from './support/app.ts';
import { freePort } from './support/procs.ts';

// what the events walkthrough says to start the service with (a day of retries in seconds)
const FAST_DAY = {
  WEBHOOK_RETRY_SCALE: '0.0001',
  WEBHOOK_DISABLE_MIN_FAILURES: '3',
  WEBHOOK_DISABLE_AFTER_HOURS: '10',
};

type Block = { file: string; line: number; code: string; expected: string[] };

function doctests(file: string): Block[] {
  const text = readFileSync(new URL(`../${file}`, import.meta.url), 'utf8');
  const blocks: Block[] = [];
  const fence = /^```sh doctest\n([\s\S]*?)^```$/gm;
  for (const m of text.matchAll(fence)) {
    const code = m[1];
    const expected = code
      .split('\n')
      .filter((l) => /^# (\{|\[|"|-?\d+(\.\d+)?$|true$|false$|null$)/.test(l))
      .map((l) => l.slice(2).trim());
    blocks.push({ file, line: text.slice(0, m.index).split('\n').length, code, expected });
  }
  return blocks;
}

// `lines` holds every line of `expected`, in order (other lines may come between)
function missing(lines: string[], expected: string[]): string | null {
  let at = 0;
  for (const e of expected) {
    const found = lines.indexOf(e, at);
    if (found < 0) return e;
    at = found + 1;
  }
  return null;
}

let app: TestApp;
const stops: (() => Promise<void>)[] = [];
test.before(async () => {
  app = await startTestApp(FAST_DAY);
  stops.push(await startBackground(app, 'worker', FAST_DAY), await startBackground(app, 'webhooks', FAST_DAY));
});
test.after.always(async () => {
  for (const stop of stops) await stop();
  await app?.close();
});

test('the walkthroughs of README.md, docs/integrating.md and docs/recurring.md print what they say, against a running service', async (t) => {
  t.timeout(240_000);
  const blocks = [...doctests('README.md'), ...doctests('docs/integrating.md'), ...doctests('docs/recurring.md')];
  t.true(blocks.length >= 3, 'the first payment, the three-party sale and the day of missed events');
  t.true(
    doctests('docs/recurring.md').length >= 4,
    'Pix Automático: the company, the mandate and its approval, a cycle paid, a debit retried, the cancellation',
  );
  const receiverPort = await freePort();
  const script = blocks
    .map(
      (b, i) =>
        `echo; echo '@@block ${i}'\n` +
        b.code.replace(/^B=http:\/\/localhost:3000/m, `B=${app.baseUrl}`).replace(/^R=4000;/m, `R=${receiverPort};`),
    )
    .join('\n');
  const bash = spawn('bash', ['-euo', 'pipefail', '-c', script], {
    env: { ...process.env, NODE_ENV: 'test', DATABASE_URL: app.databaseUrl, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  bash.stdout.on('data', (d: Buffer) => (out += d));
  bash.stderr.on('data', (d: Buffer) => (err += d));
  const code = await new Promise<number | null>((resolve) => bash.on('close', resolve));
  const printed = out.split(/^@@block (\d+)\n/m); // ['', '0', <block 0's output>, '1', …]
  const outputs = new Map<number, string[]>();
  for (let i = 1; i < printed.length; i += 2) outputs.set(Number(printed[i]), printed[i + 1].split('\n'));
  t.is(outputs.size, blocks.length, `not every block ran (exit ${code}):\n${out}\n${err}`);
  t.is(code, 0, `bash exited ${code}:\n${out}\n${err}`);
  blocks.forEach((b, i) => {
    const absent = missing(outputs.get(i) ?? [], b.expected);
    t.is(
      absent,
      null,
      `${b.file}:${b.line}: the block did not print ${absent}; it printed:\n${outputs.get(i)?.join('\n')}`,
    );
  });
  t.true(
    blocks.reduce((n, b) => n + b.expected.length, 0) >= 15,
    'the blocks state what they print (the checks above are not empty)',
  );
});
