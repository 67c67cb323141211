import react from '@vitejs/plugin-react';
import { resolve } from 'node:path';
import { defineConfig, type Plugin, type UserConfig } from 'vite';
import { relaxForDevServer } from './src/main/window-rules';

/**
 * The dev server injects an inline React-refresh preamble and <style> tags; only there is the
 * page's policy relaxed, as the Electron shell relaxes its header (src/main/window-rules.ts).
 * Built pages keep index.html's strict policy.
 */
function devCsp(): Plugin {
  return {
    name: 'nps-dev-csp',
    apply: 'serve',
    transformIndexHtml: (html) =>
      html.replace(
        /(http-equiv="Content-Security-Policy"\s+content=")([^"]*)"/,
        (_m, head: string, policy: string) => `${head}${relaxForDevServer(policy)}"`,
      ),
  };
}

/** The renderer's build, shared by electron-vite (electron.vite.config.ts) and the renderer-only build of browser mode. */
export const rendererConfig: UserConfig = {
  root: resolve('src/renderer'),
  base: './',
  plugins: [react(), devCsp()],
  build: {
    rollupOptions: { input: resolve('src/renderer/index.html') },
    minify: true,
    chunkSizeWarningLimit: 1500,
  },
};

export default defineConfig({
  ...rendererConfig,
  build: { ...rendererConfig.build, outDir: resolve('out/renderer'), emptyOutDir: true },
});
