import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

const root = import.meta.dirname;

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      // Two hosts of one backend: the Electron app, and the browser host (`node out/main/web.js`); and the
      // library's index and the rewind preview's diffs, which run in worker threads beside either of them.
      rollupOptions: {
        input: {
          index: resolve(root, 'main/hosts/index.ts'),
          web: resolve(root, 'main/hosts/web.ts'),
          'library-worker': resolve(root, 'main/library/worker/worker.ts'),
          'rewind-diff-worker': resolve(root, 'main/intake/rewind-diff-worker.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed preload cannot load modules: it is one CommonJS bundle with everything inlined.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(root, 'preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(root, 'renderer'),
    // Relative asset URLs: the same build loads from file:// in Electron and from /app/ in the browser host.
    base: './',
    plugins: [react()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      // Smaller code is read sooner: the window's first screen waits for it.
      minify: true,
      rollupOptions: { input: resolve(root, 'renderer/index.html') },
    },
  },
});
