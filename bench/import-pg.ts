import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { LEDGER_FIELDS } from '../src/shared/ledger';
import { startPostgres } from '../src/main/service/db/postgres.test-support';
import { openService } from '../src/main/service/index';
import { launchFlags } from '../scripts/launch-flags.mjs';
import { generateLedger } from './generate-ledger';

/*
 * npm run bench:import-pg -- --rows 1000000 [--seed N] [--csv-cache DIR] [--pg postgres://…] [--new-rows]
 * (NPS_IMPORT_TIMINGS=1 in the environment: each writer's time in its adds and the steps after, too)
 *
 * The import's write alone on each store: the same generated native ledger
 * (bench/generate-ledger.ts, kept in --csv-cache as bench:import keeps it) turned once into the
 * writer's lines (as bench/import-writer.ts does: no file reading or checking), then fed to the
 * SQLite writer and to the PostgreSQL writer (db/ledger-writer-pg.ts), each into an empty store, in
 * a child process of its own (bench/import-pg-child.ts: so its peak RSS is its own), about 60 KiB
 * of lines a batch as the import hands them over. The lines are read from a file 4 MiB at a time,
 * that reading's time left out. Prints rows/s of each, the peak RSS of each child, and
 * `postgres / sqlite: R` (the PostgreSQL writer's rate over SQLite's, into the empty store). With
 * --new-rows, then a second file of as many new rows (seed + 1000) into each store, the import
 * that matches every row with the ledger first, and `new rows: postgres / sqlite: R` before the
 * last line. PostgreSQL is a server of its own started as the tests start one (a throwaway
 * cluster, fsync off: SQLite's writer commits without waiting for the disk either), or --pg's
 * database (give an empty one: nothing is removed). Targets (issue 30) are printed beside the
 * figures; they are not assertions.
 */

const TARGET_RATIO = 0.5;
const TARGET_RSS_MB = 400;

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '1' },
    'csv-cache': { type: 'string' },
    pg: { type: 'string' },
    /** Then a second generated file (seed + 1000: every row new) into each store, as bench:import's second step. */
    'new-rows': { type: 'boolean', default: false },
  },
});

interface ChildResult {
  rows: number;
  stats: { added: number; updated: number; unchanged: number };
  writeMs: number;
  readMs: number;
  vmHwm: number | null;
}

const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** The CSV's rows as the writer's lines (LEDGER_FIELDS, no movement, the row number), after a first line `# rows`. */
function writeLines(csv: string, out: string): number {
  const all = readFileSync(csv, 'latin1').split('\n');
  const header = all[0]!.split(',');
  const order = LEDGER_FIELDS.map((f) => header.indexOf(f));
  const lines: string[] = [];
  let n = 0;
  for (let i = 1; i < all.length; i++) {
    if (all[i] === '') continue;
    const cells = all[i]!.split(',');
    lines.push(`${order.map((k) => cells[k]).join('\t')}\t\t${++n}`);
  }
  writeFileSync(`${out}.tmp`, `# ${n}\n${lines.join('\n')}\n`, 'latin1');
  renameSync(`${out}.tmp`, out);
  return n;
}

function child(kind: 'sqlite' | 'postgres', linesFile: string, target: string): ChildResult {
  const run = spawnSync(
    process.execPath,
    [
      ...launchFlags(['import']),
      '--import',
      'tsx',
      fileURLToPath(new URL('./import-pg-child.ts', import.meta.url)),
      kind,
      linesFile,
      target,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  if (run.status !== 0) throw new Error(`the ${kind} writer failed:\n${run.stderr}`);
  // The writer's own timers (NPS_IMPORT_TIMINGS=1 in the environment), passed through.
  for (const line of run.stderr.split('\n')) if (line.startsWith('import timing:')) console.log(`   ${line}`);
  return JSON.parse(run.stdout.trim().split('\n').pop()!) as ChildResult;
}

async function main(): Promise<void> {
  const rows = Number(values.rows);
  if (!Number.isSafeInteger(rows) || rows < 1) throw new Error('--rows: must be a positive integer');
  const seed = Number(values.seed);
  const dir = mkdtempSync(join(tmpdir(), 'nps-bench-import-pg-'));
  const cache = values['csv-cache'];
  if (cache !== undefined) mkdirSync(cache, { recursive: true });
  const csv = join(cache ?? dir, `ledger-${rows}-${seed}.csv`);
  const server = values.pg === undefined ? await startPostgres() : undefined;
  try {
    if (!existsSync(csv)) {
      const t = performance.now();
      await generateLedger(csv, rows, { seed });
      console.log(`generated ${csv} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    const linesFile = join(dir, 'lines.tsv');
    writeLines(csv, linesFile);
    const secondFile = join(dir, 'lines-new.tsv');
    if (values['new-rows']) {
      const csvB = join(cache ?? dir, `ledger-${rows}-${seed + 1000}.csv`);
      if (!existsSync(csvB)) await generateLedger(csvB, rows, { seed: seed + 1000 });
      writeLines(csvB, secondFile);
    }
    const dataDir = join(dir, 'data');
    openService({ dataDir }).close();
    const pgUrl = values.pg ?? (await server!.createDatabase('bench'));
    console.log(`${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; load average ${loadavg()[0]!.toFixed(2)}; ${fmt(rows)} rows`);
    const target = (kind: 'sqlite' | 'postgres') => (kind === 'sqlite' ? join(dataDir, 'nps.sqlite') : pgUrl);
    const step = (label: string, file: string) => {
      const results: Record<string, ChildResult> = {};
      for (const kind of ['sqlite', 'postgres'] as const) {
        const r = child(kind, file, target(kind));
        results[kind] = r;
        console.log(
          `${label}, ${kind}: ${fmt(r.rows)} rows (${fmt(r.stats.added)} added) written in ${(r.writeMs / 1000).toFixed(2)} s = ${fmt((r.rows / r.writeMs) * 1000)} rows/s; peak RSS ${r.vmHwm === null ? 'n/a' : `${mb(r.vmHwm)} MB`} (reading the lines ${(r.readMs / 1000).toFixed(2)} s, left out)`,
        );
      }
      const rate = (r: ChildResult) => r.rows / r.writeMs;
      return { ratio: rate(results.postgres!) / rate(results.sqlite!), rss: results.postgres!.vmHwm };
    };
    const fresh = step('into an empty store', linesFile);
    if (values['new-rows']) {
      const more = step('new rows into that store', secondFile);
      console.log(`new rows: postgres / sqlite: ${more.ratio.toFixed(2)}`);
    }
    const { ratio, rss } = fresh;
    console.log(
      `target: postgres at least ${TARGET_RATIO}x sqlite: ${ratio >= TARGET_RATIO ? 'met' : 'MISSED'}; its peak RSS under ${TARGET_RSS_MB} MB: ${rss === null ? 'n/a' : rss < TARGET_RSS_MB * 1024 * 1024 ? 'met' : 'MISSED'}`,
    );
    console.log(`postgres / sqlite: ${ratio.toFixed(2)}`);
  } finally {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
