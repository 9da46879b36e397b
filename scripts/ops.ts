// `npm run ops -- <command> [--flags]`: operator commands (see `npm run ops -- --help`).
import { main } from '../src/ops.ts';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`ops failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  },
);
