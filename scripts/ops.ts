// `npm run ops -- <command> [--flags]`: operator commands (see `npm run -s ops -- --help`, docs/operating.md).
import { main } from '../src/ops.ts';
import { EXIT } from '../src/platform/ops.ts';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`ops failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(EXIT.error);
  },
);
