import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { preactAliases } from './vite.config';

export default defineConfig({
  resolve: {
    alias: [
      // The test library's ES build, so its imports of react-dom go through the same aliases.
      {
        find: /^@testing-library\/react$/,
        replacement: fileURLToPath(new URL('./node_modules/@testing-library/react/dist/@testing-library/react.esm.js', import.meta.url)),
      },
      ...preactAliases,
    ],
  },
  test: {
    environment: 'happy-dom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    // Inlined so that their imports of react and react/jsx-runtime resolve to Preact too.
    server: { deps: { inline: [/@testing-library/, /react-markdown/, /hast-util-to-jsx-runtime/] } },
  },
});
