import express, { type Express } from 'express';
import { z } from 'zod';
import type { RouteRegistrar } from '../http/route.js';
import type { SignInService } from './sign-in-service.js';
import { LoginLink } from '../contract/identity.js';
import { SESSION_COOKIE } from '../http/auth.js';
import { ApiError } from '../http/api-errors.js';

const SignInBody = z.object({ api_key: z.string().trim().min(1, 'api_key: paste an API key (it starts with bxk_).') });

/**
 * Browser sign-in for the web UI (not part of the /v1 API):
 * - `GET /ui/login?token=` redeems a one-time link into an HttpOnly session cookie; a used
 *   or expired link lands on the UI's sign-in page (`/#/signin?reason=link`), never on a
 *   bare 401, so the user can paste a key instead.
 * - `POST /ui/session {api_key}` signs in with a key (same-origin only: localGuard).
 * - `DELETE /ui/session` signs out.
 */
export function mountSignIn(app: Express, signIn: SignInService, webUiDir: string | undefined) {
  const setSession = (res: express.Response, session: string) => {
    res.cookie(SESSION_COOKIE, session, { httpOnly: true, sameSite: 'strict', path: '/', maxAge: signIn.sessionTtlMs });
  };
  app.get('/ui/login', async (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const session = await signIn.redeemLink(token);
    if (!session) {
      if (webUiDir) return res.redirect(302, '/#/signin?reason=link');
      res.status(401).type('text/plain').send('This sign-in link was already used or is older than 10 minutes. Run `npx box login-link` for a new one.');
      return;
    }
    setSession(res, session);
    res.redirect(302, '/');
  });
  app.post('/ui/session', express.json({ limit: '4kb' }), async (req, res, next) => {
    const parsed = SignInBody.safeParse(req.body ?? {});
    if (!parsed.success) return next(new ApiError(400, 'invalid_request_error', parsed.error.issues[0]!.message, { param: 'api_key' }));
    const session = await signIn.withKey(parsed.data.api_key);
    if (!session)
      return next(
        new ApiError(401, 'authentication_error', 'This API key is not valid here (revoked, mistyped, or from another data directory).', {
          param: 'api_key',
          code: 'invalid_api_key',
        }),
      );
    setSession(res, session);
    res.status(204).end();
  });
  app.delete('/ui/session', (_req, res) => {
    res.clearCookie(SESSION_COOKIE, { path: '/' });
    res.status(204).end();
  });
}

/** `POST /v1/ui/login-links`: a fresh one-time link for the caller's own key (`box login-link`). */
export function loginLinkRoutes(r: RouteRegistrar, signIn: SignInService) {
  r.add({
    method: 'post',
    path: '/v1/ui/login-links',
    area: 'common',
    tag: 'identity',
    auth: 'any',
    billingExempt: true,
    idempotent: false,
    summary: 'A one-time web UI sign-in link for the calling key (valid 10 minutes, single use)',
    response: LoginLink,
    handler: async ({ auth, app }) => {
      const { token, expiresAt } = await signIn.loginLink(auth.key.id);
      return { url: `${app.baseUrl()}/ui/login?token=${token}`, expires_at: expiresAt.toISOString() };
    },
  });
}
