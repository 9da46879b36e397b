// Operator commands of users: make a user an administrator.
import { OpsError, type Command } from '../platform/ops.ts';
import { User } from './user.entity.ts';

export const authCommands: Command[] = [
  {
    name: 'user:admin',
    summary: 'give the user the ADMIN role',
    flags: { email: { type: 'string', required: true, description: 'e-mail of the user' } },
    async run({ em }, flags) {
      const user = await em.findOne(User, { email: String(flags.email).trim().toLowerCase() });
      if (!user) throw new OpsError(`no user with e-mail ${String(flags.email)}`);
      user.role = 'ADMIN';
      await em.flush();
      return { user: { id: user.id, email: user.email, role: user.role } };
    },
  },
];
