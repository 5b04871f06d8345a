import { probeBoot } from '../areas/runtime/qemu/accel.js';

/** `node --import tsx probe-child.ts <kernel> <initrd>`: runs an accelerator probe, to be killed in the middle (accel.test.ts). */
const [kernel, initrd] = process.argv.slice(2);
console.log('PROBING');
await probeBoot('tcg', kernel!, initrd!, 120_000);
