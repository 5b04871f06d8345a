/**
 * E2B template builds kept in the database (issue 33), with the stock `e2b` SDK on the fake
 * runtime: listed, deleted, tagged, and still there after a restart.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Template } from 'e2b';
import { openDatabase } from '../../platform/db/connection.js';
import { databaseFor } from '../../test-support/harness.js';
import type { ImageBuildPort } from './ports.js';
import { TemplateBuilds } from './templates-build.js';
import { e2bTestService } from './test-support/e2b-env.js';

const t = e2bTestService('bxe2btb-');

describe('E2B template builds are kept in the database', () => {
  const fakeImages = (): ImageBuildPort & { built: string[]; removed: string[] } => {
    const built: string[] = [];
    const removed: string[] = [];
    return {
      built,
      removed,
      build: (o) => {
        o.onEvent({ type: 'step', index: 1, total: 1, text: 'RUN true', cached: false });
        o.onEvent({ type: 'output', stream: 'stdout', text: 'done\n' });
        built.push(o.name);
        return Promise.resolve();
      },
      has: (name) => Promise.resolve(built.includes(name) && !removed.includes(name)),
      remove: (_org, name) => (removed.push(name), Promise.resolve()),
    };
  };
  const until = async (f: () => Promise<boolean>) => {
    for (let i = 0; i < 200 && !(await f()); i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('survives a restart: builds and logs listed, a build cut short ends in error, delete removes the image', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bxe2btpl-'));
    // SQLite in the sqlite project, a database of its own on the run's PostgreSQL in the postgres one
    const db = await openDatabase(dir, await databaseFor(dir));
    const images = fakeImages();
    const a = new TemplateBuilds(db, images, path.join(dir, 'tpl'));
    await a.recover();
    const req = await a.request('org1', { name: 'my-tpl:v1' });
    expect(req.templateID).toBe('my-tpl-v1');
    await a.start('org1', 'my-tpl-v1', req.buildID, { fromTemplate: 'base', steps: [{ type: 'RUN', args: ['true'] }] });
    await expect(a.start('org1', 'my-tpl-v1', req.buildID, { fromTemplate: 'base' })).rejects.toThrow(/already started/);
    await until(async () => (await a.status('org1', 'my-tpl-v1', req.buildID)).status === 'ready');
    const cut = await a.request('org1', { name: 'other' });
    await a.start('org1', 'other', cut.buildID, { fromImage: 'ubuntu:22.04' }); // queued behind nothing: ends in error
    await until(async () => (await a.status('org1', 'other', cut.buildID)).status === 'error');
    const waiting = await a.request('org1', { name: 'late' });

    // the service restarts: a new instance on the same database
    const b = new TemplateBuilds(db, images, path.join(dir, 'tpl'));
    await b.recover();
    const st = await b.status('org1', 'my-tpl-v1', req.buildID);
    expect(st.status).toBe('ready');
    expect(st.logEntries.map((l) => l.message)).toEqual(expect.arrayContaining(['[1/1] RUN true', 'done', 'Template my-tpl-v1 is ready']));
    expect((await b.status('org1', 'my-tpl-v1', req.buildID, 2)).logEntries.length).toBe(st.logEntries.length - 2);
    expect((await b.status('org1', 'other', cut.buildID)).reason?.message).toMatch(/fromImage 'ubuntu:22.04'/);
    const late = await b.status('org1', 'late', waiting.buildID);
    expect(late.status).toBe('error');
    expect(late.reason?.message).toMatch(/service stopped before this build finished/);

    expect((await b.list('org1')).map((t) => [t.templateID, t.buildStatus, t.buildCount])).toEqual([
      ['late', 'error', 1],
      ['other', 'error', 1],
      ['my-tpl-v1', 'ready', 1],
    ]);
    expect(await b.list('org2')).toEqual([]);
    const got = await b.get('org1', 'my-tpl-v1');
    expect(got.builds.map((x) => [x.buildID, x.status])).toEqual([[req.buildID, 'ready']]);
    expect(got.builds[0]!.finishedAt).toBeTruthy();
    await expect(b.get('org2', 'my-tpl-v1')).rejects.toThrow(/not found/);

    await b.delete('org1', 'my-tpl-v1');
    expect(images.removed).toEqual(['my-tpl-v1']);
    expect(await b.has('org1', 'my-tpl-v1')).toBe(false);
    await expect(b.status('org1', 'my-tpl-v1', req.buildID)).rejects.toThrow(/not found/);
    await expect(b.delete('org1', 'my-tpl-v1')).rejects.toThrow(/not found/);
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('keeps tags in the store: a ready build takes its tags (default without one), assign, list, remove, resolve at create, all after a restart', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bxe2btag-'));
    const db = await openDatabase(dir, await databaseFor(dir));
    const images = fakeImages();
    const a = new TemplateBuilds(db, images, path.join(dir, 'tpl'));
    const build = async (t: TemplateBuilds, body: { name: string; tags?: string[] }, fromImage?: string) => {
      const r = await t.request('org1', body);
      await t.start('org1', r.templateID, r.buildID, fromImage ? { fromImage } : { fromTemplate: 'base' });
      await until(async () => ['ready', 'error'].includes((await t.status('org1', r.templateID, r.buildID)).status));
      return r;
    };
    const v1 = await build(a, { name: 'App:V1', tags: ['stable', 'v1'] });
    expect(v1).toMatchObject({ templateID: 'app-v1', tags: ['v1', 'stable'] });
    const plain = await build(a, { name: 'app' });
    expect(plain.tags).toEqual(['default']);
    await build(a, { name: 'app:broken' }, 'ubuntu:22.04'); // fails: takes no tag
    const names = async (t: TemplateBuilds, ref: string) => (await t.tags.list('org1', ref)).map((x) => [x.tag, x.buildID]);
    expect(await names(a, 'app')).toEqual(
      expect.arrayContaining([
        ['v1', v1.buildID],
        ['stable', v1.buildID],
        ['default', plain.buildID],
      ]),
    );
    expect((await a.tags.list('org1', 'app')).length).toBe(3);
    expect(await names(a, 'app-v1')).toEqual(await names(a, 'app')); // by a build's template id too
    expect((await a.tags.assignTags('org1', 'app:v1', ['Production', 'latest', 'latest'])).tags).toEqual(['production', 'latest']);
    await expect(a.tags.assignTags('org1', 'app:v1', [':bad'])).rejects.toThrow(/tags\[0\]: invalid tag/);
    await expect(a.tags.assignTags('org1', 'app:', ['x'])).rejects.toThrow(/^target:/);
    await expect(a.tags.assignTags('org1', 'app:nope', ['x'])).rejects.toThrow(/with tag 'nope' not found/);
    await expect(a.tags.assignTags('org1', 'app:v1', ['00000000-0000-0000-0000-000000000000'])).rejects.toThrow(/cannot be a UUID/);
    await expect(a.tags.assignTags('org1', 'app:v1', [])).rejects.toThrow(/at least one tag/);
    // the restart: tags are in the store
    const b = new TemplateBuilds(db, images, path.join(dir, 'tpl'));
    await b.recover();
    expect(await b.tags.resolve('org1', 'app:production')).toBe('app-v1');
    expect(await b.tags.resolve('org1', 'app')).toBe('app'); // its default tag's build
    expect(await b.tags.resolve('org1', 'app:broken')).toBe('app-broken'); // no such tag: the image of that name
    expect(await b.tags.resolve('org2', 'app:production')).toBe('app-production');
    await b.tags.removeTags('org1', 'app', ['production']);
    expect(await b.tags.resolve('org1', 'app:production')).toBe('app-production');
    await expect(b.tags.removeTags('org1', 'app', ['default'])).rejects.toThrow(/cannot delete the 'default' tag/);
    await expect(b.tags.removeTags('org1', 'app:v1', ['stable'])).rejects.toThrow(/should not contain a tag/);
    await expect(b.tags.removeTags('org1', 'nope', ['stable'])).rejects.toThrow(/Template 'nope' not found/);
    await expect(b.tags.list('org2', 'app')).rejects.toThrow(/not found/);
    await b.delete('org1', 'app-v1');
    expect((await b.tags.list('org1', 'app')).map((x) => x.tag)).toEqual(['default']);
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("assigns, lists and removes tags with the SDK's Template over E2B's routes, errors naming the field", async () => {
    const res = await t.e2b('/v3/templates', { method: 'POST', json: { name: 'sdk-tags:v1' } });
    expect(res.status).toBe(202);
    // a build that is not ready has no tags yet: the target is not found
    await expect(Template.assignTags('sdk-tags:v1', 'production', t.opts)).rejects.toThrow(/404: Template 'sdk-tags:v1' with tag 'v1' not found/);
    expect(await Template.getTags('sdk-tags', t.opts)).toEqual([]);
    await expect(Template.getTags('never-built', t.opts)).rejects.toThrow(/404: Template 'never-built' not found/);
    await expect(Template.removeTags('sdk-tags', 'default', t.opts)).rejects.toThrow(/400: tags: cannot delete the 'default' tag/);
    await expect(Template.removeTags('never-built', 'x', t.opts)).rejects.toThrow(/404/);
    const bad = await t.e2b('/templates/tags', { method: 'POST', json: { target: 'sdk-tags:v1', tags: ['ok', 'not ok'] } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ code: 400, message: expect.stringMatching(/^tags\[1\]: invalid tag 'not ok'/) as unknown as string });
    expect((await t.e2b('/templates/sdk-tags-v1', { method: 'DELETE' })).status).toBe(204);
  });

  it("lists and deletes over E2B's routes (a snapshot id still deletes the snapshot)", async () => {
    expect(await (await t.e2b('/templates')).json()).toEqual([]);
    const res = await t.e2b('/v3/templates', { method: 'POST', json: { name: 'listed' } });
    expect(res.status).toBe(202);
    const { buildID } = (await res.json()) as { buildID: string };
    const list = (await (await t.e2b('/templates')).json()) as Array<{ templateID: string; buildStatus: string; buildID: string }>;
    expect(list).toEqual([expect.objectContaining({ templateID: 'listed', buildStatus: 'waiting', buildID })]);
    const one = (await (await t.e2b('/templates/listed')).json()) as { builds: Array<{ buildID: string; status: string }> };
    expect(one.builds).toEqual([expect.objectContaining({ buildID, status: 'waiting' })]);
    expect((await t.e2b('/templates/listed', { method: 'DELETE' })).status).toBe(204);
    expect((await t.e2b('/templates/listed')).status).toBe(404);
    const missing = await t.e2b('/templates/boxcp_missing', { method: 'DELETE' });
    expect(missing.status).toBe(404);
  });
});
