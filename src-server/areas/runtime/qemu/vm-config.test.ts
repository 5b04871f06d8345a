import { describe, expect, it } from 'vitest';
import { BoxFolder } from '../box-folder.js';
import { kernelCmdline, netdevArg, qemuArgs, type VmConfig } from './vm-config.js';

const base: VmConfig = {
  kernel: '/k/vmlinux',
  initrd: '/k/initrd.img',
  rootfs: '/k/rootfs.raw',
  memoryMib: 512,
  vcpus: 2,
  diskGib: 4,
  accel: 'tcg',
  tscKhz: 2596100,
};

describe('vm-config', () => {
  it('puts the required kernel arguments on the command line', () => {
    const cmd = kernelCmdline({ ...base, hostname: 'b1' }).split(' ');
    for (const a of [
      'console=ttyS0',
      'tsc_early_khz=2596100',
      'tsc=reliable',
      'cryptomgr.notests',
      'mitigations=off',
      '8250.nr_uarts=1',
      'quiet',
      'panic=-1',
      'nokaslr',
      'pci=off',
      'box.hostname=b1',
    ]) {
      expect(cmd).toContain(a);
    }
  });

  it('turns guest ASLR off under TCG only (translated code is keyed by virtual address)', () => {
    expect(kernelCmdline(base).split(' ')).toContain('norandmaps');
    expect(kernelCmdline({ ...base, accel: 'kvm' }).split(' ')).not.toContain('norandmaps');
    expect(qemuArgs(new BoxFolder('/tmp/x'), base)).toContain('tcg,tb-size=64');
  });

  it('restricts user networking to the proxy and published ports', () => {
    const net = netdevArg({ ...base, proxyPort: 4100, ports: [{ hostPort: 18080, guestPort: 8080 }] });
    expect(net).toBe('user,id=net0,restrict=on,guestfwd=tcp:10.0.2.100:3128-cmd:socat -t0.01 - TCP:127.0.0.1:4100,hostfwd=tcp:127.0.0.1:18080-:8080');
    expect(netdevArg(base)).toBe('user,id=net0,restrict=on');
  });

  it('maps volume mounts to 9p devices and a box.mounts argument', () => {
    const cfg = {
      ...base,
      mounts: [
        { hostPath: '/data/a,b', guestPath: '/mnt/a' },
        { hostPath: '/data/c', guestPath: '/srv', readOnly: true },
      ],
    };
    const args = qemuArgs(new BoxFolder('/tmp/x'), cfg);
    expect(args).toContain('local,id=fs0,path=/data/a,,b,security_model=none');
    expect(args).toContain('local,id=fs1,path=/data/c,security_model=none,readonly=on');
    expect(args).toContain('virtio-9p-device,fsdev=fs1,mount_tag=vol1');
    expect(kernelCmdline(cfg)).toContain('box.mounts=vol0:/mnt/a,vol1:/srv:ro');
    expect(() => kernelCmdline({ ...base, mounts: [{ hostPath: '/x', guestPath: '/has space' }] })).toThrow();
  });

  it('backs guest RAM with the folder ram file, shared, and defers incoming migrations on restore', () => {
    const f = new BoxFolder('/tmp/box1');
    const args = qemuArgs(f, base, { incoming: true });
    expect(args).toContain('memory-backend-file,id=mem,size=512M,mem-path=/tmp/box1/ram,share=on');
    expect(args.slice(-2)).toEqual(['-incoming', 'defer']);
    expect(args).toContain('virtserialport,chardev=agent,name=box.agent');
    expect(args).toContain('-daemonize');
  });
});
