// Runs a route's validation steps two ways, for the whenPresent property tests (test/validation.groups.test.ts,
// test/recurring.mandates.validation.test.ts): as the route runs them (a group only when its part is present), and
// flat (every chain of every group, in order). For any body both must give the same errors and sanitised body.
import { validationResult, type ValidationChain } from 'express-validator';
import type { Request, RequestHandler } from 'express';

export type Step = ValidationChain | (RequestHandler & { chains?: ValidationChain[] });

const request = (body: unknown) =>
  ({ body: structuredClone(body), headers: {}, query: {}, params: {}, cookies: {} }) as unknown as Request;

export async function grouped(steps: Step[], body: unknown) {
  const req = request(body);
  for (const step of steps) {
    if ('chains' in step && step.chains)
      await new Promise<void>((next) => (step as RequestHandler)(req, {} as never, () => next()));
    else await (step as ValidationChain).run(req);
  }
  return { errors: validationResult(req).array(), body: req.body as unknown };
}

export async function flat(steps: Step[], body: unknown) {
  const req = request(body);
  for (const step of steps)
    for (const chain of 'chains' in step && step.chains ? step.chains : [step])
      await (chain as ValidationChain).run(req);
  return { errors: validationResult(req).array(), body: req.body as unknown };
}
