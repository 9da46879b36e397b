import passport from 'passport';
import { Strategy as BearerStrategy, type VerifyFunctionWithRequest } from 'passport-http-bearer';
import type { RequestHandler } from 'express';
import { AUTH_MESSAGES, ForbiddenError, NotFoundError, UnauthorizedError } from '../platform/errors.ts';
import { resolvePrincipal } from './auth.service.ts';

// One bearer strategy for both credentials; a failure travels as a domain error so the spec's messages reach the
// client.
export function createAuthenticator(jwtSecret: string): RequestHandler {
  const authenticator = new passport.Passport();
  authenticator.use(
    new BearerStrategy<VerifyFunctionWithRequest>({ passReqToCallback: true }, (req, token, done) => {
      resolvePrincipal(req.em, jwtSecret, token).then(
        (p) => done(null, p),
        (err: unknown) => done(err),
      );
    }),
  );
  const bearer = authenticator.authenticate('bearer', { session: false, failWithError: true });
  return (req, res, next) => {
    const header = req.headers.authorization;
    if (!header || !header.trim()) return next(new UnauthorizedError(AUTH_MESSAGES.missingHeader));
    if (!/^Bearer\s+\S+$/i.test(header.trim())) return next(new UnauthorizedError(AUTH_MESSAGES.invalidToken));
    bearer(req, res, (err?: unknown) => {
      // passport's own failure (no usable token) is a plain 401 without our message
      if (err && !(err instanceof UnauthorizedError) && !(err instanceof ForbiddenError)) {
        return next(
          (err as { status?: number }).status === 401 ? new UnauthorizedError(AUTH_MESSAGES.invalidToken) : err,
        );
      }
      next(err);
    });
  };
}

export const requireJwt: RequestHandler = (req, _res, next) => {
  next(req.user?.via === 'jwt' ? undefined : new ForbiddenError(AUTH_MESSAGES.jwtOnly));
};

// Routes about "my merchant" need one; a user without a merchant (e.g. an operator) gets the spec's message.
export function merchantIdOf(req: { user?: Express.User }): string {
  const id = req.user?.merchantId;
  if (!id) throw new NotFoundError(AUTH_MESSAGES.merchantNotFound);
  return id;
}
