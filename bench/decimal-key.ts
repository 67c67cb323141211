import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openDb } from '../src/main/service/db/open';
import { openPostgres } from '../src/main/service/db/postgres';
import { startPostgres } from '../src/main/service/db/postgres.test-support';

/*
 * npx tsx bench/decimal-key.ts [--rows 200000] [--repeat 3]
 * Amounts ordered and bounded by decimal_key on both engines (team mode, docs/team.md): SQLite calls
 * the JavaScript function of db/decimal-sql.ts a row, PostgreSQL the PL/pgSQL one of migrations-pg.
 * The same seeded amounts in a table of each; the best of `repeat` runs of the full sort (the
 * Tickets screen's sort by amount) and of a bound (its amount filter), and whether both engines
 * answered alike. PostgreSQL is a throwaway server on this machine (db/postgres.test-support.ts).
 */

const { values } = parseArgs({
  options: { rows: { type: 'string', default: '200000' }, repeat: { type: 'string', default: '3' } },
  allowPositionals: true,
});
const rows = Number(values.rows);
const repeat = Number(values.repeat);

let s = 1;
const next = (n: number) => {
  s = (s * 1103515245 + 12345) % 2147483648;
  return s % n;
};
const digits = (n: number) => Array.from({ length: n }, () => String(next(10))).join('');
const amounts = Array.from(
  { length: rows },
  () => `${next(4) === 0 ? '-' : ''}${digits(1 + next(9))}${next(3) === 0 ? '' : `.${digits(1 + next(18))}`}`,
);
const bound = '1000.5';

const best = async (run: () => unknown | Promise<unknown>) => {
  let ms = Infinity;
  let answer: unknown;
  for (let i = 0; i < repeat; i++) {
    const t = performance.now();
    answer = await run();
    ms = Math.min(ms, performance.now() - t);
  }
  return { ms, answer };
};

const dir = mkdtempSync(join(tmpdir(), 'nps-bench-decimal-key-'));
const server = await startPostgres();
try {
  console.log(`${rows.toLocaleString('en-US')} amounts, best of ${repeat}; load ${loadavg()[0]!.toFixed(2)}`);

  const sqlite = openDb({ file: join(dir, 'nps.sqlite') }).$client;
  sqlite.exec('CREATE TABLE amounts (amount TEXT NOT NULL)');
  const insert = sqlite.prepare('INSERT INTO amounts (amount) VALUES (?)');
  sqlite.transaction(() => amounts.forEach((a) => insert.run(a)))();
  const sqliteSort = await best(() => sqlite.prepare('SELECT amount FROM amounts ORDER BY decimal_key(amount), rowid').pluck().all());
  const sqliteBound = await best(
    () => sqlite.prepare('SELECT count(*) FROM amounts WHERE decimal_key(amount) >= decimal_key(?)').pluck().get(bound) as number,
  );

  const pg = await openPostgres(await server.createDatabase('bench'));
  await pg.$client.query('CREATE TABLE amounts (n bigint GENERATED ALWAYS AS IDENTITY, amount text NOT NULL)');
  for (let i = 0; i < amounts.length; i += 50_000) {
    await pg.$client.query('INSERT INTO amounts (amount) SELECT unnest($1::text[])', [amounts.slice(i, i + 50_000)]);
  }
  await pg.$client.query('ANALYZE amounts');
  const pgSort = await best(async () =>
    (await pg.$client.query<{ amount: string }>('SELECT amount FROM amounts ORDER BY decimal_key(amount), n')).rows.map((r) => r.amount),
  );
  const pgBound = await best(
    async () =>
      (
        await pg.$client.query<{ c: number }>('SELECT count(*)::int AS c FROM amounts WHERE decimal_key(amount) >= decimal_key($1)', [
          bound,
        ])
      ).rows[0]!.c,
  );
  await pg.$client.end();
  sqlite.close();

  const same = JSON.stringify(sqliteSort.answer) === JSON.stringify(pgSort.answer) && sqliteBound.answer === pgBound.answer;
  const line = (what: string, a: { ms: number }, b: { ms: number }) =>
    console.log(
      `${what.padEnd(34)} SQLite ${a.ms.toFixed(0).padStart(6)} ms   PostgreSQL ${b.ms.toFixed(0).padStart(6)} ms   (${(b.ms / a.ms).toFixed(2)}×)`,
    );
  line('ORDER BY decimal_key(amount)', sqliteSort, pgSort);
  line(`decimal_key(amount) >= '${bound}'`, sqliteBound, pgBound);
  console.log(same ? 'both engines answered alike' : 'THE ENGINES ANSWERED DIFFERENTLY');
  if (!same) process.exitCode = 1;
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
