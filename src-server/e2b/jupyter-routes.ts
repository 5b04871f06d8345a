import express, { type Router } from 'express';
import { NotImplemented } from '../core/errors.js';

/** The code interpreter's /execute and /contexts (port 49999) on Box's kernels. */
export function e2bJupyterRoutes(): Router {
  const r = express.Router();
  r.use((_req, _res, next) => next(new NotImplemented('The code interpreter is not available on this service yet.')));
  return r;
}
