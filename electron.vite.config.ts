import react from '@vitejs/plugin-react';
import tailwindcss from '@tailwindcss/vite';
import { defineConfig } from 'electron-vite';
import path from 'node:path';

/**
 * Builds the Electron shell without the Electron binary (architecture.md, Toolchain):
 * main bundles src-server in-process (native deps stay external: better-sqlite3 loads its
 * prebuilt .node file, node-llama-cpp its platform packages); the preload is CommonJS
 * because sandboxed preloads cannot be ES modules; the renderer is also the web UI.
 */
export default defineConfig({
  main: {
    build: {
      // `dependencies` in package.json stay external (includes both native modules), except
      // @peculiar/x509: its tsyringe needs Reflect metadata when it loads, which
      // util/reflect-shim.ts provides. An external import is hoisted above every
      // bundled module body (shim included) and the app died at start; bundled, it loads
      // where egress-ca.ts imports it, after the shim (e2e/desktop-bundle.spec.ts).
      // @box/contract is a workspace package of TypeScript sources: bundled, never external.
      externalizeDeps: { include: ['better-sqlite3', 'node-llama-cpp'], exclude: ['@peculiar/x509', '@box/contract'] },
      lib: { entry: path.resolve('src-main/main/index.ts'), formats: ['es'] },
      outDir: path.resolve('out/main'),
    },
  },
  preload: {
    build: {
      externalizeDeps: { exclude: ['@box/contract'] },
      lib: { entry: path.resolve('src-main/preload/index.ts'), formats: ['cjs'] },
      outDir: path.resolve('out/preload'),
      rolldownOptions: { output: { entryFileNames: '[name].cjs' } },
    },
  },
  renderer: {
    root: path.resolve('src-renderer'),
    plugins: [react(), tailwindcss()],
    build: {
      outDir: path.resolve('out/renderer'),
      emptyOutDir: true,
      minify: true,
      chunkSizeWarningLimit: 1500,
      rolldownOptions: { input: path.resolve('src-renderer/index.html') },
    },
  },
});
