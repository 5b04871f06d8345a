#!/usr/bin/env node
// The `box` CLI from a checkout: registers tsx's ESM loader in this process (no child
// process, so the terminal, signals and exit code are the CLI's own) and runs the TS entry.
import { register } from 'tsx/esm/api';

register();
await import(new URL('../src-cli/index.ts', import.meta.url).href);
