// Express' Request as this service sees it: the authenticated principal on req.user.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/principal.ts';

declare global {
  namespace Express {
    // passport puts the authenticated principal on req.user
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface User extends Principal {}
    interface Request {
      em: EntityManager;
    }
  }
}

export {};
