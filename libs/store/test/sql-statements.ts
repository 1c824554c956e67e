import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

export interface SqlText {
  /** repository-relative path of the source file */
  readonly file: string;
  readonly line: number;
  /** the statement or fragment with SQL comments removed and whitespace collapsed */
  readonly sql: string;
}

/** Stands where a template interpolates something this reader cannot resolve (a column list, a helper's fragment). */
export const HOLE = '__expr__';

// The store writes its SQL keywords in capitals; text without one of these (or a clock assigned,
// a SET-list fragment) is a message or a name.
const SQL_WORD =
  /\b(SELECT|INSERT INTO|UPDATE|DELETE FROM|FOR UPDATE|SKIP LOCKED|ON CONFLICT|LATERAL)\b|\b[a-z_]+\s*=\s*(now|clock_timestamp)\s*\(/;

/**
 * Every SQL text in the TypeScript files under `dir`, read from the syntax tree rather than by
 * pattern, so that quotes, nested templates and comments in code do not confuse it. A template's
 * interpolation becomes the text it stands for when that is a literal (a conditional between
 * literals contributes both branches, so `${lock ? 'FOR UPDATE' : ''}` is seen), and HOLE otherwise.
 * Only outermost literals count: a literal inside another's interpolation is part of that one.
 */
export function sqlTexts(root: string, dir: string): SqlText[] {
  return tsFiles(dir).flatMap((path) => sqlInSource(relative(root, path), readFileSync(path, 'utf8')));
}

export function sqlInSource(file: string, source: string): SqlText[] {
  const tree = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const out: SqlText[] = [];
  const visit = (node: ts.Node): void => {
    const text = isLiteral(node) ? textOf(node as ts.Expression) : undefined;
    if (text !== undefined) {
      const sql = normalise(text);
      if (SQL_WORD.test(sql))
        out.push({ file, line: tree.getLineAndCharacterOfPosition(node.getStart()).line + 1, sql });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(tree);
  return out;
}

function isLiteral(node: ts.Node): boolean {
  return ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node);
}

function textOf(expr: ts.Expression): string {
  if (ts.isStringLiteral(expr) || ts.isNoSubstitutionTemplateLiteral(expr)) return expr.text;
  if (ts.isTemplateExpression(expr))
    return expr.head.text + expr.templateSpans.map((s) => textOf(s.expression) + s.literal.text).join('');
  if (ts.isParenthesizedExpression(expr)) return textOf(expr.expression);
  if (ts.isConditionalExpression(expr)) return `${textOf(expr.whenTrue)} ${textOf(expr.whenFalse)}`;
  if (ts.isBinaryExpression(expr) && expr.operatorToken.kind === ts.SyntaxKind.PlusToken)
    return textOf(expr.left) + textOf(expr.right);
  return ` ${HOLE} `;
}

/** Drops `-- …` and `/* … *\/` comments (outside quoted strings) and collapses whitespace. */
export function normalise(sql: string): string {
  let out = '';
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'") {
      const end = sql.indexOf("'", i + 1);
      const stop = end < 0 ? sql.length : end;
      out += sql.slice(i, stop + 1);
      i = stop;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end - 1;
      out += ' ';
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 1;
      out += ' ';
    } else out += c;
  }
  return out.replace(/\s+/g, ' ').trim();
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return tsFiles(path);
      return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
    });
}
