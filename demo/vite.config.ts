import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { authbrokerDemoPlugin } from './vitePlugin.js';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The demo. `localhost`, not 127.0.0.1: passkeys need it. The SharedWorker is bundled by Vite from
 * `new SharedWorker(new URL(...), { type: 'module' })` in src/client.ts; the service-worker broker
 * is served at /authbroker-sw.js by the plugin (a service worker's scope is its URL's directory).
 */
export default defineConfig({
  root,
  plugins: [react(), authbrokerDemoPlugin()],
  server: {
    host: 'localhost',
    port: 5173,
    strictPort: true,
    fs: { allow: [fileURLToPath(new URL('..', import.meta.url))] },
  },
  preview: { host: 'localhost', port: 4173 },
  worker: { format: 'es' },
  build: { outDir: fileURLToPath(new URL('../dist/demo', import.meta.url)), emptyOutDir: true, sourcemap: true },
});
