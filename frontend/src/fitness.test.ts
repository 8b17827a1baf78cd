// The page's house rules, checked on its sources: components render and hooks talk to Go
// (STYLE.md, habit 10), and no function grows past what a reader holds at once (habit 12).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(__dirname);

/** Every source file under dir, tests and the test helpers aside. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'test' ? [] : sources(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const parse = (file: string) => ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);

/** The modules a file imports, statically, by export from, or with import(). */
function imports(sf: ts.SourceFile): string[] {
  const out: string[] = [];
  const visit = (n: ts.Node) => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier && ts.isStringLiteral(n.moduleSpecifier)) out.push(n.moduleSpecifier.text);
    if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword && n.arguments[0] && ts.isStringLiteral(n.arguments[0])) out.push(n.arguments[0].text);
    if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument) && ts.isStringLiteral(n.argument.literal)) out.push(n.argument.literal.text);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

// A top-level function's body, with the wrappers components come in (memo, forwardRef, lazy).
function functionOf(e: ts.Expression | undefined): ts.FunctionLikeDeclaration | undefined {
  if (!e) return undefined;
  if (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) return e;
  if (ts.isCallExpression(e)) return e.arguments.map(functionOf).find(Boolean);
  if (ts.isParenthesizedExpression(e) || ts.isAsExpression(e)) return functionOf(e.expression);
  return undefined;
}

/** The page's top-level functions and components, each with its name and length in lines. */
function functions(sf: ts.SourceFile): { name: string; line: number; lines: number }[] {
  const out: { name: string; line: number; lines: number }[] = [];
  const add = (name: string, n: ts.Node) => {
    const start = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
    const end = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
    out.push({ name, line: start + 1, lines: end - start + 1 });
  };
  for (const st of sf.statements) {
    if (ts.isFunctionDeclaration(st) && st.body) add(st.name?.text ?? 'default', st);
    if (ts.isVariableStatement(st)) {
      for (const d of st.declarationList.declarations) if (functionOf(d.initializer)) add(d.name.getText(sf), d);
    }
    if (ts.isClassDeclaration(st)) {
      for (const m of st.members) if (ts.isMethodDeclaration(m) && m.body) add(`${st.name?.text}.${m.name.getText(sf)}`, m);
    }
  }
  return out;
}

describe('the page', () => {
  it('calls Go only from hooks: no component imports src/api/backend', () => {
    const backend = join(SRC, 'api', 'backend');
    const files = [...sources(join(SRC, 'components')), join(SRC, 'App.tsx')];
    expect(files.length).toBeGreaterThan(40);
    const bad = files.flatMap((f) =>
      imports(parse(f))
        .filter((m) => m.startsWith('.') && resolve(f, '..', m).replace(/\.tsx?$/, '') === backend)
        .map(() => `${relative(SRC, f)} imports api/backend: move its calls into a hook in src/hooks`),
    );
    expect(bad).toEqual([]);
  });

  // The house aims at about 60 lines (STYLE.md, habit 12); 100 is where it fails.
  const MAX_LINES = 100;

  it(`has no function or component over ${MAX_LINES} lines`, () => {
    const all = sources(SRC).flatMap((f) => functions(parse(f)).map((fn) => ({ ...fn, file: relative(SRC, f) })));
    expect(all.length).toBeGreaterThan(200); // the files moved, or the parse found nothing?
    const long = all.filter((fn) => fn.lines > MAX_LINES).map((fn) => `${fn.file}:${fn.line}: ${fn.name} is ${fn.lines} lines (limit ${MAX_LINES}): split it`);
    expect(long).toEqual([]);
  });
});
