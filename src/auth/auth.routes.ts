// /v1/auth: login (a JWT for a user's e-mail and password).
import { Router } from 'express';
import { body } from 'express-validator';
import { validate } from '../platform/validation.ts';
import { login } from './auth.service.ts';
import type { RequestHandler } from 'express';

// The login e-mail, normalised (lower case) as it is stored.
export const emailRule = () =>
  body('email')
    .isString()
    .withMessage('email é obrigatório')
    .bail()
    .trim()
    .toLowerCase()
    .isEmail()
    .withMessage('email inválido')
    .bail()
    .isLength({ max: 254 })
    .withMessage('email deve ter no máximo 254 caracteres');

export function authRoutes(jwtSecret: string, limiter: RequestHandler): Router {
  const router = Router();

  router.post(
    '/login',
    limiter,
    ...validate([
      emailRule(),
      body('password')
        .isString()
        .withMessage('password é obrigatório')
        .bail()
        .isLength({ min: 1, max: 128 })
        .withMessage('password inválido'),
    ]),
    async (req, res) => {
      const { email, password } = req.body as Record<string, string>;
      res.json(await login(req.em, jwtSecret, email, password));
    },
  );

  return router;
}
