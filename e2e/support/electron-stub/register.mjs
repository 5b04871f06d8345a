// `node --import ./register.mjs out/main/index.js`: `electron` resolves to ./electron.mjs.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
