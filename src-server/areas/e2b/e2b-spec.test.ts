import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type {
  E2BCreateBody,
  E2BCreated,
  E2BError,
  E2BForkBody,
  E2BListedSandbox,
  E2BRefreshBody,
  E2BSandboxDetail,
  E2BSnapshot,
  E2BTimeoutBody,
} from '@box/contract/e2b';
import type { components } from '@box/contract/e2b-openapi.gen';
import type {
  E2BNewSecret,
  E2BNewVolume,
  E2BSecret,
  E2BSecretUpdate,
  E2BTemplate,
  E2BTemplateWithBuilds,
  E2BVolume,
  E2BVolumeAndToken,
} from '@box/contract/e2b-rest';
import type { components as envdHttp } from './envd/gen/envd-http.gen.js';
import type { EnvdFilesHttp } from './envd/files-http.js';
import type { EntryInfo } from './envd/gen/filesystem_pb.js';
import { Filesystem } from './envd/gen/filesystem_pb.js';
import { Process } from './envd/gen/process_pb.js';

/**
 * Box's E2B shapes (contract/e2b.ts, zod, with Box's own messages) checked against the types
 * generated from E2B's OpenAPI document and envd's .proto files (scripts/gen-e2b-types.mjs,
 * pinned). These checks run in the typecheck: a field E2B adds, renames or retypes fails
 * `npm run typecheck` until Box's shape follows it.
 */
type Spec = components['schemas'];

/** Every value the spec allows for each field Box takes is a value Box's body accepts. */
type AcceptsSpec<Ours, Theirs, Except extends keyof Theirs = never> = {
  [K in Exclude<keyof Theirs, Except>]: K extends keyof Ours ? (Theirs[K] extends Ours[K] ? true : false) : false;
};
type AllTrue<T> = T[keyof T] extends true ? true : false;

describe("Box's E2B shapes follow E2B's specifications", () => {
  it('request bodies accept every field of the spec, except the ones E2B-cloud only', () => {
    // secure: envd always wants a token in Box; iam: E2B-cloud identity tokens.
    expectTypeOf<AllTrue<AcceptsSpec<z.input<typeof E2BCreateBody>, Spec['NewSandbox'], 'secure' | 'iam'>>>().toEqualTypeOf<true>();
    expectTypeOf<AllTrue<AcceptsSpec<z.input<typeof E2BTimeoutBody>, Spec['SandboxTimeoutRequest']>>>().toEqualTypeOf<true>();
    expectTypeOf<AllTrue<AcceptsSpec<z.input<typeof E2BRefreshBody>, Spec['SandboxRefreshRequest']>>>().toEqualTypeOf<true>();
    expectTypeOf<keyof Spec['SandboxForkRequest']>().toEqualTypeOf<keyof z.input<typeof E2BForkBody>>();
    expectTypeOf<AllTrue<AcceptsSpec<z.input<typeof E2BNewSecret>, Spec['NewSecret']>>>().toEqualTypeOf<true>();
    expectTypeOf<AllTrue<AcceptsSpec<z.input<typeof E2BSecretUpdate>, Spec['SecretUpdate']>>>().toEqualTypeOf<true>();
    expectTypeOf<AllTrue<AcceptsSpec<z.input<typeof E2BNewVolume>, Spec['NewVolume']>>>().toEqualTypeOf<true>();
  });

  it('responses are values of the spec types', () => {
    expectTypeOf<z.output<typeof E2BCreated>>().toExtend<Spec['Sandbox']>();
    expectTypeOf<z.output<typeof E2BListedSandbox>>().toExtend<Spec['ListedSandbox']>();
    expectTypeOf<z.output<typeof E2BSandboxDetail>>().toExtend<Spec['SandboxDetail']>();
    expectTypeOf<z.output<typeof E2BError>>().toExtend<Spec['Error']>();
    expectTypeOf<z.output<typeof E2BSnapshot>>().toExtend<Spec['SnapshotInfo']>();
    expectTypeOf<z.output<typeof E2BSecret>>().toExtend<Spec['Secret']>();
    expectTypeOf<z.output<typeof E2BVolume>>().toExtend<Spec['Volume']>();
    expectTypeOf<z.output<typeof E2BVolumeAndToken>>().toExtend<Spec['VolumeAndToken']>();
    expectTypeOf<z.output<typeof E2BTemplate>>().toExtend<Spec['Template']>();
    expectTypeOf<z.output<typeof E2BTemplateWithBuilds>>().toExtend<Spec['TemplateWithBuilds']>();
    // envd's HTTP upload answers a list of EntryInfo
    expectTypeOf<Awaited<ReturnType<EnvdFilesHttp['upload']>>>().toExtend<Array<envdHttp['schemas']['EntryInfo']>>();
  });

  it("envd's services are the ones the SDK calls", () => {
    const names = (s: typeof Process | typeof Filesystem) => s.methods.map((m) => m.name).sort();
    expect(Process.typeName).toBe('process.Process');
    expect(Filesystem.typeName).toBe('filesystem.Filesystem');
    expect(names(Process)).toEqual(['CloseStdin', 'Connect', 'List', 'SendInput', 'SendSignal', 'Start', 'StreamInput', 'Update']);
    expect(names(Filesystem)).toEqual(
      ['CreateWatcher', 'GetWatcherEvents', 'ListDir', 'MakeDir', 'Move', 'Remove', 'RemoveWatcher', 'Stat', 'WatchDir'].sort(),
    );
    // envd 0.6's file metadata is part of the pinned schema
    expectTypeOf<EntryInfo['metadata']>().toEqualTypeOf<{ [key: string]: string }>();
  });
});
