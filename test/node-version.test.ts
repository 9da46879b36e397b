// The project carries its own Node (the `node` package puts it first on the PATH of every npm script). Node ships its
// security fixes as patch releases of each line, so the pin must be the newest patch of its major the registry offers.
import test from 'ava';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const pinned: string = pkg.dependencies.node;
const EXACT = /^\d+\.\d+\.\d+$/;
const parts = (v: string) => v.split('.').map(Number);
const compare = (a: string, b: string) => {
  const [x, y] = [parts(a), parts(b)];
  return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
};

test('the node dependency is pinned exactly, and it is the Node running the suite', (t) => {
  t.regex(pinned, EXACT);
  t.is(process.version, `v${pinned}`);
});

test('the pinned node is the newest patch of its major line on the registry (skipped offline)', async (t) => {
  const major = pinned.split('.')[0];
  let stdout: string;
  try {
    // npm itself, so its registry, proxy and CA settings apply; a short timeout keeps an offline run fast
    ({ stdout } = await promisify(execFile)(
      'npm',
      ['view', `node@${major}`, 'version', '--json', '--prefer-online', '--fetch-timeout=4000', '--fetch-retries=0'],
      { timeout: 8000 },
    ));
  } catch (err) {
    const { stderr, message } = err as { stderr?: string; message: string };
    t.log(`registry not reachable, check skipped: ${(stderr?.trim() || message).split('\n')[0]}`);
    t.pass();
    return;
  }
  const versions = ([JSON.parse(stdout)] as unknown[]).flat().filter((v): v is string => EXACT.test(String(v)));
  t.true(versions.includes(pinned), `the registry does not list node ${pinned}`);
  const newest = versions.sort(compare).at(-1)!;
  t.is(pinned, newest, `node ${pinned} is behind ${newest}: npm install --save-exact node@${newest}`);
});
