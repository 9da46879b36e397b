import { Router } from 'express';
import { body } from 'express-validator';
import { validate } from '../platform/validation.ts';
import { isValidDocument, normalizeDocument } from '../merchants/documents.ts';
import { login, register } from './auth.service.ts';
import type { RequestHandler } from 'express';

const email = () => body('email').isString().withMessage('email é obrigatório').bail().trim().toLowerCase()
  .isEmail().withMessage('email inválido').bail().isLength({ max: 254 }).withMessage('email deve ter no máximo 254 caracteres');

export function authRoutes(jwtSecret: string, limiter: RequestHandler): Router {
  const router = Router();

  router.post('/register', limiter, ...validate([
    email(),
    body('password').isString().withMessage('password é obrigatório').bail()
      .isLength({ min: 8, max: 128 }).withMessage('password deve ter entre 8 e 128 caracteres'),
    body('name').isString().withMessage('name é obrigatório').bail().trim()
      .isLength({ min: 2, max: 100 }).withMessage('name deve ter entre 2 e 100 caracteres'),
    body('document').custom(isValidDocument).withMessage('document deve ser um CPF ou CNPJ válido').customSanitizer(normalizeDocument),
  ]), async (req, res) => {
    const { email, password, name, document } = req.body as Record<string, string>;
    res.status(201).json(await register(req.em, jwtSecret, { email, password, name, document }));
  });

  router.post('/login', limiter, ...validate([
    email(),
    body('password').isString().withMessage('password é obrigatório').bail().isLength({ min: 1, max: 128 }).withMessage('password inválido'),
  ]), async (req, res) => {
    const { email, password } = req.body as Record<string, string>;
    res.json(await login(req.em, jwtSecret, email, password));
  });

  return router;
}
