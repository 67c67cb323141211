/*
 * Where the service reaches the store, counted by type rather than by text (a Map's get is not a
 * statement's): the figures of docs/team.md, "Status and plan", for moving the domains onto one store
 * interface with a PostgreSQL engine. Run: npx tsx scripts/store-census.ts [--json]
 *
 * Per file of src/ (tests and test support left out):
 * - sql: SQL written as text and run: stmt(db, '…'), and better-sqlite3's prepare and exec;
 * - builder: drizzle query builders (db.select/insert/update/delete);
 * - sync: statements executed synchronously (better-sqlite3's run/get/all/iterate, a transaction
 *   function called, a drizzle sqlite builder's run/get/all/values): each must become an await;
 * - pragma: PRAGMAs, as calls of pragma() or as SQL text;
 * - fn: SQL functions registered on a connection (function, aggregate, table);
 * - tx: transactions begun (inTransaction, a connection's transaction(), exec('BEGIN …')): each a
 *   synchronous block today, an awaited one on PostgreSQL.
 */
import ts from 'typescript';
import { relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const config = ts.getParsedCommandLineOfConfigFile(
  resolve(root, 'tsconfig.node.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  },
)!;
const program = ts.createProgram(config.fileNames, { ...config.options, noEmit: true });
const checker = program.getTypeChecker();

type Kind = 'sql' | 'builder' | 'sync' | 'pragma' | 'fn' | 'tx';
const counts = new Map<string, Record<Kind, number>>();
const count = (file: string, kind: Kind) => {
  let c = counts.get(file);
  if (!c) counts.set(file, (c = { sql: 0, builder: 0, sync: 0, pragma: 0, fn: 0, tx: 0 }));
  c[kind]++;
};

/** Where the type of an expression is declared: the package (or file) and the type's name (of an intersection such as Db, its first part's). */
function origin(node: ts.Expression): { from: string; name: string } | undefined {
  const whole = checker.getTypeAtLocation(node);
  for (const type of whole.isIntersection() ? whole.types : [whole]) {
    const symbol = type.getSymbol() ?? type.aliasSymbol;
    const decl = symbol?.declarations?.[0];
    if (symbol && decl) return { from: decl.getSourceFile().fileName, name: symbol.getName() };
  }
  return undefined;
}

const fromBetterSqlite = (o: { from: string } | undefined) => !!o && o.from.includes('@types/better-sqlite3');
const fromDrizzleSqlite = (o: { from: string } | undefined) =>
  !!o && /drizzle-orm\/(sqlite-core|better-sqlite3)\//.test(o.from.replace(/\\/g, '/'));

const source = (f: ts.SourceFile) =>
  f.fileName.startsWith(resolve(root, 'src')) && !/\.test\.tsx?$|\.test-support\.ts$/.test(f.fileName) && !f.isDeclarationFile;

for (const file of program.getSourceFiles().filter(source)) {
  const name = relative(root, file.fileName);
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) && /^\s*PRAGMA\s/i.test(node.text)) count(name, 'pragma');
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (ts.isIdentifier(callee) && callee.text === 'stmt') count(name, 'sql');
      if (ts.isIdentifier(callee) && callee.text === 'inTransaction') count(name, 'tx');
      if (ts.isPropertyAccessExpression(callee)) {
        const method = callee.name.text;
        const on = origin(callee.expression);
        if (fromBetterSqlite(on) && on!.name === 'Database') {
          if (method === 'prepare' || method === 'exec') count(name, 'sql');
          const text = node.arguments[0];
          if (method === 'exec' && text && ts.isStringLiteralLike(text) && /^\s*BEGIN\b/i.test(text.text)) count(name, 'tx');
          if (method === 'pragma') count(name, 'pragma');
          if (['function', 'aggregate', 'table'].includes(method)) count(name, 'fn');
          if (method === 'transaction') count(name, 'tx');
        }
        if (fromBetterSqlite(on) && on!.name === 'Statement' && ['run', 'get', 'all', 'iterate'].includes(method)) count(name, 'sync');
        if (fromBetterSqlite(on) && on!.name === 'Transaction') count(name, 'sync');
        if (fromDrizzleSqlite(on) && ['run', 'get', 'all', 'values'].includes(method)) count(name, 'sync');
        if (['select', 'insert', 'update', 'delete', 'selectDistinct'].includes(method) && fromDrizzleSqlite(on)) count(name, 'builder');
      }
      // A transaction function called directly: db.$client.transaction(fn)().
      if (
        ts.isCallExpression(callee) &&
        ts.isPropertyAccessExpression(callee.expression) &&
        callee.expression.name.text === 'transaction'
      ) {
        if (fromBetterSqlite(origin(callee.expression.expression))) count(name, 'sync');
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}

const rows = [...counts.entries()].sort(([a], [b]) => a.localeCompare(b));
const total = rows.reduce<Record<Kind, number>>(
  (t, [, c]) => {
    for (const k of Object.keys(t) as Kind[]) t[k] += c[k];
    return t;
  },
  { sql: 0, builder: 0, sync: 0, pragma: 0, fn: 0, tx: 0 },
);
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ files: Object.fromEntries(rows), total }, null, 2));
} else {
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  console.log(`${'file'.padEnd(56)}${pad('sql', 5)}${pad('builder', 9)}${pad('sync', 6)}${pad('pragma', 8)}${pad('fn', 4)}${pad('tx', 4)}`);
  for (const [f, c] of rows)
    console.log(`${f.padEnd(56)}${pad(c.sql, 5)}${pad(c.builder, 9)}${pad(c.sync, 6)}${pad(c.pragma, 8)}${pad(c.fn, 4)}${pad(c.tx, 4)}`);
  console.log(
    `${`total (${rows.length} files)`.padEnd(56)}${pad(total.sql, 5)}${pad(total.builder, 9)}${pad(total.sync, 6)}${pad(total.pragma, 8)}${pad(total.fn, 4)}${pad(total.tx, 4)}`,
  );
}
