import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BOX_GATEWAY_AUTH_HEADER, BOX_ID_HEADER, HmacBoxCredentials } from './box-credentials.js';

describe('BoxCredentials', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'boxcred-'));
  const a = HmacBoxCredentials.forDataDir(dir);

  it('gives each box its own stable token, agreed by every holder of the data dir', () => {
    const again = HmacBoxCredentials.forDataDir(dir);
    expect(a.tokenFor('box_1')).toMatch(/^bxb_[A-Za-z0-9_-]{43}$/);
    expect(again.tokenFor('box_1')).toBe(a.tokenFor('box_1'));
    expect(a.tokenFor('box_2')).not.toBe(a.tokenFor('box_1'));
    expect((fs.statSync(path.join(dir, 'box-gateway.key')).mode & 0o777).toString(8)).toBe('600');
  });

  it('verifies a token only for its own box', () => {
    expect(a.verifyToken('box_1', a.tokenFor('box_1'))).toBe(true);
    expect(a.verifyToken('box_2', a.tokenFor('box_1'))).toBe(false);
    expect(a.verifyToken('box_1', 'bxb_x')).toBe(false);
  });

  it('accepts the internal headers it minted and nothing forged', () => {
    const h = a.internalAuthFor('box_1');
    expect(a.verifyInternal(h)).toEqual({ boxId: 'box_1' });
    expect(a.verifyInternal({})).toBeNull();
    expect(a.verifyInternal({ ...h, [BOX_ID_HEADER]: 'box_2' })).toBe('invalid');
    expect(a.verifyInternal({ [BOX_ID_HEADER]: 'box_1' })).toBe('invalid');
    // The box's own token is not the internal credential.
    expect(a.verifyInternal({ [BOX_ID_HEADER]: 'box_1', [BOX_GATEWAY_AUTH_HEADER]: a.tokenFor('box_1') })).toBe('invalid');
    const other = HmacBoxCredentials.forDataDir(fs.mkdtempSync(path.join(os.tmpdir(), 'boxcred-')));
    expect(a.verifyInternal(other.internalAuthFor('box_1'))).toBe('invalid');
  });
});
