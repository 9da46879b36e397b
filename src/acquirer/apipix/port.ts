// The PSP's word in the port's terms: 'unavailable' (no answer, outcome unknown) and 'refused' (a definite no) stay
// apart; a 404 is an answer where the port asks whether something exists.
import { AcquirerRefusedError, AcquirerUnavailableError } from '../errors.ts';
import { ApiPixError } from './errors.ts';

export function portError(err: unknown): unknown {
  if (!(err instanceof ApiPixError)) return err;
  if (err.kind === 'unavailable') return new AcquirerUnavailableError();
  const why = err.problem?.detail ?? err.problem?.title;
  return new AcquirerRefusedError(`O adquirente recusou a operação${why ? `: ${why}` : ''}`);
}

export async function call<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw portError(err);
  }
}

// A 404 is an answer here: the PSP does not know the thing.
export async function orNull<T>(run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof ApiPixError && err.kind === 'not_found') return null;
    throw portError(err);
  }
}
