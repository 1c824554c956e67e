import { defineConfig } from 'vite';

// Served by the API under /console (see libs/http serveStatic); everything is bundled, nothing
// is fetched from elsewhere at run time.
export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
});
