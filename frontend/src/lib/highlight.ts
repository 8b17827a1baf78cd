// Syntax highlighting of fenced code, with each language's grammar loaded the first time a
// reply uses it (one small chunk per language), instead of all of them with the first paint.
// Highlighting builds hast nodes (spans with class names), never HTML strings.
import type { Element, ElementContent, Root } from 'hast';
import type { LanguageFn } from 'highlight.js';
import { createLowlight } from 'lowlight';

type Loader = () => Promise<{ default: LanguageFn }>;

// The languages highlight.js calls common, each under the names a fence uses for it.
const LOADERS: Record<string, Loader> = {};
const add = (load: Loader, ...names: string[]) => names.forEach((n) => (LOADERS[n] = load));
add(() => import('highlight.js/lib/languages/arduino'), 'arduino', 'ino');
add(() => import('highlight.js/lib/languages/bash'), 'bash', 'sh', 'zsh', 'console');
add(() => import('highlight.js/lib/languages/c'), 'c', 'h');
add(() => import('highlight.js/lib/languages/cpp'), 'cpp', 'cc', 'c++', 'hpp', 'cxx');
add(() => import('highlight.js/lib/languages/csharp'), 'csharp', 'cs', 'c#');
add(() => import('highlight.js/lib/languages/css'), 'css');
add(() => import('highlight.js/lib/languages/diff'), 'diff', 'patch');
add(() => import('highlight.js/lib/languages/go'), 'go', 'golang');
add(() => import('highlight.js/lib/languages/graphql'), 'graphql', 'gql');
add(() => import('highlight.js/lib/languages/ini'), 'ini', 'toml');
add(() => import('highlight.js/lib/languages/java'), 'java', 'jsp');
add(() => import('highlight.js/lib/languages/javascript'), 'javascript', 'js', 'jsx', 'mjs', 'cjs');
add(() => import('highlight.js/lib/languages/json'), 'json', 'jsonc', 'jsonl');
add(() => import('highlight.js/lib/languages/kotlin'), 'kotlin', 'kt', 'kts');
add(() => import('highlight.js/lib/languages/less'), 'less');
add(() => import('highlight.js/lib/languages/lua'), 'lua');
add(() => import('highlight.js/lib/languages/makefile'), 'makefile', 'mk', 'make');
add(() => import('highlight.js/lib/languages/markdown'), 'markdown', 'md');
add(() => import('highlight.js/lib/languages/objectivec'), 'objectivec', 'objc', 'mm');
add(() => import('highlight.js/lib/languages/perl'), 'perl', 'pl', 'pm');
add(() => import('highlight.js/lib/languages/php'), 'php');
add(() => import('highlight.js/lib/languages/python'), 'python', 'py', 'gyp');
add(() => import('highlight.js/lib/languages/python-repl'), 'python-repl', 'pycon');
add(() => import('highlight.js/lib/languages/r'), 'r');
add(() => import('highlight.js/lib/languages/ruby'), 'ruby', 'rb', 'gemspec');
add(() => import('highlight.js/lib/languages/rust'), 'rust', 'rs');
add(() => import('highlight.js/lib/languages/scss'), 'scss');
add(() => import('highlight.js/lib/languages/shell'), 'shell', 'shellsession');
add(() => import('highlight.js/lib/languages/sql'), 'sql');
add(() => import('highlight.js/lib/languages/swift'), 'swift');
add(() => import('highlight.js/lib/languages/typescript'), 'typescript', 'ts', 'tsx', 'mts');
add(() => import('highlight.js/lib/languages/vbnet'), 'vbnet', 'vb');
add(() => import('highlight.js/lib/languages/wasm'), 'wasm');
add(() => import('highlight.js/lib/languages/xml'), 'xml', 'html', 'xhtml', 'svg');
add(() => import('highlight.js/lib/languages/yaml'), 'yaml', 'yml');

const lowlight = createLowlight();
const loading = new Map<string, Promise<void>>();
const listeners = new Set<() => void>();
let version = 0;

/** Changes each time a grammar finished loading (for useSyncExternalStore). */
export const highlightVersion = () => version;
export function onHighlightLoaded(fn: () => void) {
  listeners.add(fn);
  return () => void listeners.delete(fn);
}

/** The fence languages of a markdown text, lower-cased. */
export function fenceLanguages(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/^ {0,3}(?:```|~~~)[ \t]*([\w#+.-]+)/gm)) out.add(m[1].toLowerCase());
  return [...out];
}

/** Starts loading the grammars of langs not loaded yet; listeners hear when each is in. */
export function loadLanguages(langs: string[]) {
  for (const lang of langs) {
    const load = LOADERS[lang];
    if (!load || lowlight.registered(lang) || loading.has(lang)) continue;
    loading.set(
      lang,
      load().then(
        (m) => {
          // One grammar serves all its names.
          const names = Object.keys(LOADERS).filter((n) => LOADERS[n] === load);
          lowlight.register({ [names[0]]: m.default });
          lowlight.registerAlias({ [names[0]]: names.slice(1) });
          version++;
          for (const fn of [...listeners]) fn();
        },
        () => {}, // no highlighting for it; the code still shows
      ),
    );
  }
}

/** Whether every grammar of langs that Loopdesk knows is loaded. */
export const languagesReady = (langs: string[]) => langs.every((l) => !LOADERS[l] || lowlight.registered(l));

function text(node: ElementContent): string {
  if (node.type === 'text') return node.value;
  if (node.type === 'element') return node.children.map(text).join('');
  return '';
}

function highlightCode(code: Element) {
  const cls = (code.properties.className as string[] | undefined) ?? [];
  const lang = cls.find((c) => c.startsWith('language-'))?.slice('language-'.length).toLowerCase();
  if (!lang || !lowlight.registered(lang)) return;
  const tree = lowlight.highlight(lang, code.children.map(text).join(''));
  code.properties.className = [...cls, 'hljs'];
  code.children = tree.children as ElementContent[];
}

function walk(node: Root | Element, parent: Root | Element | null) {
  if (node.type === 'element' && node.tagName === 'code' && parent?.type === 'element' && parent.tagName === 'pre') {
    highlightCode(node);
    return;
  }
  for (const child of node.children) if (child.type === 'element') walk(child, node);
}

/** The rehype plugin: highlights `pre > code.language-X` whose grammar is loaded. */
export function rehypeLazyHighlight() {
  return (tree: Root) => walk(tree, null);
}
