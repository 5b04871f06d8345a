import express, { type Express } from 'express';
import type { RouteRegistrar } from '../http/route.js';
import { AcceptInviteBody, CreateInviteBody } from '../contract/serving.js';
import type { InviteService } from './invite-service.js';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${esc(title)}</title>` +
  `<style>body{font:15px system-ui,sans-serif;max-width:46rem;margin:3rem auto;padding:0 1rem;color:#222}code,pre{background:#f3f3f3;padding:.2rem .4rem;border-radius:4px}pre{padding:.8rem;white-space:pre-wrap;word-break:break-all}button{font:inherit;padding:.5rem 1rem}</style>` +
  `</head><body><h1>${esc(title)}</h1>${body}</body></html>`;

/**
 * `POST /v1/invites` (organization-scoped keys: the admins) makes a one-time link;
 * `POST /v1/invites/accept {token}` (no key: the token is the credential) consumes it and
 * answers the new key. The link itself (`GET /ui/invite?token=`) is a page with one button,
 * so a link preview that fetches it does not use it up; its form posts to `/ui/invite`,
 * which shows the key once with the commands to use it.
 */
export function inviteRoutes(r: RouteRegistrar, invites: InviteService) {
  r.add({
    method: 'post',
    path: '/v1/invites',
    area: 'box',
    tag: 'identity',
    idempotent: false,
    summary: 'Invite a member: a one-time link that yields a new key of the organization',
    body: CreateInviteBody,
    handler: ({ auth, body, app }) => invites.create(auth, body, app.baseUrl()),
  });
  r.add({
    method: 'post',
    path: '/v1/invites/accept',
    area: 'box',
    tag: 'identity',
    auth: 'none',
    idempotent: false,
    summary: "Accept an invite: consumes its link's token and answers the new key (shown this once)",
    body: AcceptInviteBody,
    handler: ({ body, app }) => invites.accept(body.token, app.baseUrl(), app.config.tls?.fingerprint),
  });
}

export function mountInvitePage(app: Express, invites: InviteService, baseUrl: () => string, fingerprint: () => string | undefined) {
  app.get('/ui/invite', (req, res) => {
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    res.set('Cache-Control', 'no-store').type('html');
    res.send(
      page(
        'You are invited to a Box service',
        `<p>This link makes an API key for you on <code>${esc(baseUrl())}</code>. It works once.</p>` +
          `<form method="post" action="/ui/invite"><input type="hidden" name="token" value="${esc(token)}"><button type="submit">Create my key</button></form>`,
      ),
    );
  });
  app.post('/ui/invite', express.urlencoded({ extended: false, limit: '4kb' }), async (req, res) => {
    res.set('Cache-Control', 'no-store').type('html');
    const token = typeof (req.body as { token?: unknown } | undefined)?.token === 'string' ? (req.body as { token: string }).token : '';
    try {
      const a = await invites.accept(token, baseUrl(), fingerprint());
      const fp = a.tls_fingerprint ? ` (certificate SHA-256 ${a.tls_fingerprint})` : '';
      res.send(
        page(
          'Your key',
          `<p>Copy it now: it is not shown again.</p><pre id="key">${esc(a.key.secret)}</pre>` +
            `<p>With the CLI${esc(fp)}:</p><pre>npx box context add team ${esc(a.url)} --key ${esc(a.key.secret)}\nnpx box context use team</pre>` +
            `<p>Or sign in to the web UI with it: <a href="/#/signin">${esc(a.url)}/#/signin</a>.</p>`,
        ),
      );
    } catch (e) {
      res.status(404).send(page('Invite not valid', `<p>${esc((e as Error).message)}</p>`));
    }
  });
}
