// The webhook receiver of the benchmarks, in its own process so it does not share the measuring process' CPU.
// Answers 200 "ok" at once and records, per request, the arrival time and the event's data.id.
import { createServer } from 'node:http';

const arrivals: [string, number][] = [];
let count = 0;
const now = () => performance.timeOrigin + performance.now(); // ms since the epoch, sub-ms precision, comparable across processes
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    count++;
    if (process.env.RECORD_IDS === 'true') {
      try {
        arrivals.push([JSON.parse(Buffer.concat(chunks).toString()).data.id, now()]);
      } catch {
        /* not an event */
      }
    }
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('message', (msg) => {
  if (msg === 'report') process.send?.({ count, arrivals });
  if (msg === 'reset') {
    count = 0;
    arrivals.length = 0;
    process.send?.({ reset: true });
  }
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
