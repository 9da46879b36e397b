// The middleware that authenticates a request's bearer credential (JWT or API key) and the helpers routes use.
import passport from 'passport';
import { Strategy as BearerStrategy, type VerifyFunctionWithRequest } from 'passport-http-bearer';
import type { RequestHandler } from 'express';
import { AUTH_MESSAGES, ForbiddenError, NotFoundError, UnauthorizedError } from '../platform/errors.ts';
import { resolvePrincipal } from './auth.service.ts';
import type { PrincipalCache } from './principal-cache.ts';

// `Bearer <token>`, read leniently (RFC 7235 allows one or more spaces; tabs and the scheme's case are forgiven too).
const BEARER = /^bearer[ \t]+([^\s]+)$/i;

// One bearer strategy for both credentials; a failure travels as a domain error so the spec's messages reach the
// client: every malformed or refused credential is a 401 with one of the spec's four messages, never a 400.
// Its query is a declared statement, named on the pool (prepared.ts); `cache`: what credentials resolve to, kept
// (principal-cache.ts).
export function createAuthenticator(jwtSecret: string, cache?: PrincipalCache): RequestHandler {
  const authenticator = new passport.Passport();
  authenticator.use(
    new BearerStrategy<VerifyFunctionWithRequest>({ passReqToCallback: true }, (req, token, done) => {
      resolvePrincipal(req.em, jwtSecret, token, cache).then(
        (p) => done(null, p),
        (err: unknown) => done(err),
      );
    }),
  );
  const bearer = authenticator.authenticate('bearer', { session: false, failWithError: true });
  return (req, res, next) => {
    const header = req.headers.authorization?.trim();
    if (!header) return next(new UnauthorizedError(AUTH_MESSAGES.missingHeader));
    const token = BEARER.exec(header)?.[1];
    if (!token) return next(new UnauthorizedError(AUTH_MESSAGES.invalidToken));
    // passport-http-bearer splits on exactly one space: it is given the header in that canonical form
    req.headers.authorization = `Bearer ${token}`;
    bearer(req, res, (err?: unknown) => {
      // passport's own failures (400: a second token in the query or body; 401: none usable) carry no message of ours
      if (err && !(err instanceof UnauthorizedError) && !(err instanceof ForbiddenError)) {
        const status = (err as { status?: number }).status;
        return next(status === 400 || status === 401 ? new UnauthorizedError(AUTH_MESSAGES.invalidToken) : err);
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
