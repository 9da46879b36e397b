// How each process is launched (V8 flags, environment): one list for `npm start`, the benchmarks and, kept equal by
// test/runtime.test.ts, package.json's start:* scripts. Why these values: docs/performance.md.
// The API's request objects live across database round trips: a large young generation lets them die young; its old
// generation is capped at 128 MB, so two API processes and their primary fit a 512 MB dyno (the live heap is far less).
// MALLOC_ARENA_MAX=2: glibc would give each thread its own malloc arena.
export const PROCESS_FLAGS = {
  api: ['--max-semi-space-size=16', '--max-old-space-size=128'],
  worker: ['--max-semi-space-size=4'],
  webhooks: ['--max-semi-space-size=1', '--max-old-space-size=96'],
} as const;

export const PROCESS_ENV = { MALLOC_ARENA_MAX: '2' } as const;

export type App = keyof typeof PROCESS_FLAGS;
