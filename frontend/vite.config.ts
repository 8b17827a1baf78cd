import { defineConfig } from 'vite';

// The page runs on Preact through its React compatibility layer: the same components, hooks
// and libraries (react-markdown), about 200 KB less script to fetch and compile at start-up
// and 4.5 MB less memory in the window's web process (docs/benchmarks.md, "fourth pass").
// JSX compiles to react/jsx-runtime, which the alias points at Preact's.
export const preactAliases = [
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react-dom\/test-utils$/, replacement: 'preact/test-utils' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/jsx-dev-runtime' },
  { find: /^react$/, replacement: 'preact/compat' },
];

export default defineConfig({
  resolve: { alias: preactAliases },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
});
