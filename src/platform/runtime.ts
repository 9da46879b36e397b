// How each process is launched: V8 flags and environment. One list for `npm start`, the benchmarks and (kept equal by
// test/runtime.test.ts) package.json's start:* scripts, which the Procfile runs.
// - The API's requests keep their objects across database round trips, so a 16 MB young generation (semi-space) lets
//   most of them die young instead of being promoted (5-10 % more charges/s, no more RSS than with 4 MB). The worker
//   keeps 4 MB; the webhook daemon, whose live heap stays near 30 MB, 1 MB and a 96 MB old generation.
// - MALLOC_ARENA_MAX=2: glibc would give each of V8's and libuv's threads its own malloc arena; two are enough here
//   and save 10-20 MB per process.
export const PROCESS_FLAGS = {
  api: ['--max-semi-space-size=16'],
  worker: ['--max-semi-space-size=4'],
  webhooks: ['--max-semi-space-size=1', '--max-old-space-size=96'],
} as const;

export const PROCESS_ENV = { MALLOC_ARENA_MAX: '2' } as const;

export type App = keyof typeof PROCESS_FLAGS;
