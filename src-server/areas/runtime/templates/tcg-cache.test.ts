import { afterEach, describe, expect, it } from 'vitest';
import type { TemplateWarmup } from '../../boxes/ports.js';
import { BoxFolder } from '../box-folder.js';
import { qemuArgs, type VmConfig } from '../qemu/vm-config.js';
import { tcgCacheFor } from './template-warmups.js';

const warmup = (key: string, tcgCache?: TemplateWarmup['tcgCache']): TemplateWarmup => ({ key, run: async () => {}, ...(tcgCache ? { tcgCache } : {}) });
const base: VmConfig = { kernel: 'k', initrd: 'i', rootfs: 'r', memoryMib: 512, vcpus: 1, diskGib: 4, accel: 'tcg', tscKhz: 2_000_000 };
const tbSize = (c: VmConfig) => qemuArgs(new BoxFolder('/tmp/x'), c).find((a) => a.startsWith('tcg,'));

describe('the TCG translation cache an image needs (a desktop image runs Chromium)', () => {
  afterEach(() => {
    delete process.env.BOX_TCG_TB_SIZE;
  });

  it('comes from the warm-ups that ask for it, for their image and images built FROM it', () => {
    const ws = [warmup('code'), warmup('desktop', { image: 'desktop', mib: 512 }), warmup('big', { image: 'lab', mib: 256 })];
    expect(tcgCacheFor(ws, ['debian'])).toBe(0);
    expect(tcgCacheFor(ws, ['desktop', 'debian'])).toBe(512);
    expect(tcgCacheFor(ws, ['my-desktop', 'desktop', 'debian'])).toBe(512);
    expect(tcgCacheFor(ws, ['lab', 'desktop', 'debian'])).toBe(512);
    expect(tcgCacheFor(ws, ['lab', 'debian'])).toBe(256);
    expect(tcgCacheFor([], ['desktop'])).toBe(0);
  });

  it("goes on QEMU's command line; BOX_TCG_TB_SIZE wins; KVM has none", () => {
    expect(tbSize(base)).toBe('tcg,tb-size=64');
    expect(tbSize({ ...base, tcgTbSizeMib: 512 })).toBe('tcg,tb-size=512');
    process.env.BOX_TCG_TB_SIZE = '128';
    expect(tbSize({ ...base, tcgTbSizeMib: 512 })).toBe('tcg,tb-size=128');
    expect(qemuArgs(new BoxFolder('/tmp/x'), { ...base, accel: 'kvm', tcgTbSizeMib: 512 }).join(' ')).not.toContain('tb-size');
  });
});
