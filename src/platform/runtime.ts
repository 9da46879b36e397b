// How each process is launched: V8 flags and environment. One list for `npm start`, the benchmarks and (kept equal by
// test/runtime.test.ts) package.json's start:* scripts, which the Procfile runs.
// - A small young generation keeps resident memory down under load at no measurable cost in throughput: 4 MB semi-spaces
//   for the API and the worker, 1 MB for the webhook daemon, whose live heap stays near 30 MB.
// - MALLOC_ARENA_MAX=2: glibc would give each of V8's and libuv's threads its own malloc arena; two are enough here
//   and save 10-20 MB per process.
export const PROCESS_FLAGS = {
  api: ['--max-semi-space-size=4'],
  worker: ['--max-semi-space-size=4'],
  webhooks: ['--max-semi-space-size=1', '--max-old-space-size=96'],
} as const;

export const PROCESS_ENV = { MALLOC_ARENA_MAX: '2' } as const;

export type App = keyof typeof PROCESS_FLAGS;
