import test from 'ava';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const sdk = fileURLToPath(new URL('..', import.meta.url));
const cli = fileURLToPath(new URL('../../node_modules/openapi-typescript/bin/cli.js', import.meta.url));

// `npm run -w sdk generate`, word for word from sdk/package.json, with extra arguments.
function generate(extra: string[], cwd = sdk) {
  const { scripts } = JSON.parse(readFileSync(join(sdk, 'package.json'), 'utf8')) as { scripts: { generate: string } };
  const [bin, ...args] = scripts.generate.split(' ');
  if (bin !== 'openapi-typescript') throw new Error(`unexpected generate script: ${scripts.generate}`);
  return run(process.execPath, [cli, ...args, ...extra], { cwd });
}

test('the committed types are what docs/openapi.yaml generates today (else: npm run -w sdk generate)', async (t) => {
  await t.notThrowsAsync(generate(['--check']), 'sdk/src/openapi.ts is stale: run `npm run -w sdk generate`');
});

test('the drift check fails on a document that changed', async (t) => {
  // the same command in a copy of the layout (../docs/openapi.yaml, src/openapi.ts) with one operation renamed
  const dir = mkdtempSync(join(tmpdir(), 'sdk-drift-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  for (const d of ['docs', 'sdk/src']) mkdirSync(join(dir, d), { recursive: true });
  const doc = readFileSync(join(sdk, '../docs/openapi.yaml'), 'utf8');
  writeFileSync(join(dir, 'docs/openapi.yaml'), doc.replace('operationId: listEvents', 'operationId: listAllEvents'));
  copyFileSync(join(sdk, 'src/openapi.ts'), join(dir, 'sdk/src/openapi.ts'));
  const error = await t.throwsAsync(generate(['--check'], join(dir, 'sdk')));
  t.regex(String((error as { stderr?: string }).stderr), /not up-to-date/);
});
