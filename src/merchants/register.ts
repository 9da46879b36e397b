// /v1/auth/register: a new user and its merchant, created together.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Router, type RequestHandler } from 'express';
import { body } from 'express-validator';
import { ConflictError } from '../platform/errors.ts';
import { validate } from '../platform/validation.ts';
import { isValidDocument, normalizeDocument } from '../pix/documents.ts';
import { stripFormatChars } from '../pix/text.ts';
import { emailRule } from '../auth/auth.routes.ts';
import { userView, type AuthResult } from '../auth/auth.service.ts';
import { hashPassword } from '../auth/password.ts';
import { signJwt } from '../auth/tokens.ts';
import { User } from '../auth/user.entity.ts';
import { Merchant } from './merchant.entity.ts';
import { transactional } from '../platform/transaction.ts';

export type RegisterInput = { email: string; password: string; name: string; document: string };

// Creates the user (role USER) and its merchant (ACTIVE, KYC PENDING) together.
export async function register(em: EntityManager, jwtSecret: string, input: RegisterInput): Promise<AuthResult> {
  const passwordHash = await hashPassword(input.password);
  try {
    const user = await transactional(em, async (tx) => {
      const user = tx.create(User, { email: input.email, passwordHash, role: 'USER' });
      tx.create(Merchant, { user, name: input.name, document: input.document });
      await tx.flush();
      return user;
    });
    return { token: signJwt(jwtSecret, user.id, user.role), user: userView(user) };
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException)
      throw new ConflictError('E-mail já cadastrado', 'email_taken');
    throw err;
  }
}

// POST /v1/auth/register (no credential): a merchant signs up.
export function registerRoutes(jwtSecret: string, limiter: RequestHandler): Router {
  const router = Router();
  router.post(
    '/register',
    limiter,
    ...validate([
      emailRule(),
      body('password')
        .isString()
        .withMessage('password é obrigatório')
        .bail()
        .isLength({ min: 8, max: 128 })
        .withMessage('password deve ter entre 8 e 128 caracteres'),
      body('name')
        .isString()
        .withMessage('name é obrigatório')
        .bail()
        .customSanitizer(stripFormatChars) // payers read it (BR Code, payload location)
        .trim()
        .isLength({ min: 2, max: 100 })
        .withMessage('name deve ter entre 2 e 100 caracteres'),
      body('document')
        .custom(isValidDocument)
        .withMessage('document deve ser um CPF ou CNPJ válido')
        .customSanitizer(normalizeDocument),
    ]),
    async (req, res) => {
      const { email, password, name, document } = req.body as RegisterInput;
      res.status(201).json(await register(req.em, jwtSecret, { email, password, name, document }));
    },
  );
  return router;
}
