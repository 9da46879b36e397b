import test from 'ava';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

// createLogger as a process sees it: pino-pretty under NODE_ENV=development when stdout is a terminal (a
// pseudo-terminal from util-linux's `script`), JSON lines otherwise; the secrets censored either way.
const run = promisify(execFile);
const LOGGER = new URL('../src/platform/logger.ts', import.meta.url).href;
const SECRET = 'hunter2-' + 'c0ffee'.repeat(4);
const PROGRAM =
  `const { createLogger } = await import(${JSON.stringify(LOGGER)});` +
  `const log = createLogger('info', 'demo');` +
  `log.info({ password: ${JSON.stringify(SECRET)}, merchantId: 'm_1' }, 'merchant signed up');` +
  // a fatal line right before exit still gets out
  `log.fatal('stopping'); process.exit(0);`;
// as after `npm ci --omit=dev`: pino-pretty cannot be found
const WITHOUT_PRETTY =
  `(await import('node:module')).registerHooks({ resolve: (specifier, context, next) => {` +
  `if (specifier === 'pino-pretty') throw Object.assign(new Error('Cannot find module'), { code: 'MODULE_NOT_FOUND' });` +
  `return next(specifier, context); } });`;
const nodeCommand = (program: string) =>
  `${JSON.stringify(process.execPath)} --input-type=module -e ${JSON.stringify(program)}`;
const command = nodeCommand(PROGRAM);

async function inTerminal(nodeEnv: string, program = command): Promise<string> {
  // -e: script's exit status is the program's; the transcript goes to /dev/null, the terminal's output to stdout
  const { stdout } = await run('script', ['-qec', program, '/dev/null'], {
    env: { ...process.env, NODE_ENV: nodeEnv },
  });
  return stdout.replace(/\r/g, '');
}

async function inPipe(nodeEnv: string): Promise<string> {
  const { stdout } = await run('sh', ['-c', command], { env: { ...process.env, NODE_ENV: nodeEnv } });
  return stdout;
}

// pino's default destination writes asynchronously and a fatal line synchronously: they may arrive in either order
const byMessage = (out: string) =>
  new Map(
    out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .map((l) => [l.msg, l]),
  );

test('NODE_ENV=development in a terminal: readable lines, the secret redacted', async (t) => {
  const out = await inTerminal('development');
  // ANSI colours stripped: "[12:00:00.000] INFO (demo): merchant signed up" then the object's fields indented
  // eslint-disable-next-line no-control-regex
  const plain = out.replace(/\x1b\[[0-9;]*m/g, '');
  t.regex(plain, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(demo\): merchant signed up$/m);
  t.regex(plain, /^ {4}password: "\[redacted\]"$/m);
  t.regex(plain, /^ {4}merchantId: "m_1"$/m);
  t.regex(plain, /^\[[\d:.]+\] FATAL \(demo\): stopping$/m);
  t.not(out, plain, 'coloured for the terminal');
  t.false(out.includes(SECRET));
  t.throws(() => JSON.parse(plain.split('\n')[0]));
});

test('NODE_ENV=development into a pipe (a file, a collector): JSON lines, the secret redacted', async (t) => {
  const lines = byMessage(await inPipe('development'));
  t.like(lines.get('merchant signed up'), { level: 30, name: 'demo', password: '[redacted]', merchantId: 'm_1' });
  t.like(lines.get('stopping'), { level: 60 });
  t.is(lines.size, 2);
});

test('any other NODE_ENV in a terminal: JSON lines, the secret redacted', async (t) => {
  for (const nodeEnv of ['production', 'test']) {
    const lines = byMessage(await inTerminal(nodeEnv));
    t.like(lines.get('merchant signed up'), { level: 30, password: '[redacted]' }, nodeEnv);
    t.like(lines.get('stopping'), { level: 60 }, nodeEnv);
    t.is(lines.size, 2);
  }
});

test('NODE_ENV=development in a terminal without pino-pretty installed: JSON lines, nothing fails', async (t) => {
  const lines = byMessage(await inTerminal('development', nodeCommand(WITHOUT_PRETTY + PROGRAM)));
  t.like(lines.get('merchant signed up'), { level: 30, password: '[redacted]' });
  t.like(lines.get('stopping'), { level: 60 });
  t.is(lines.size, 2);
});
