import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { generateLedger } from './generate-ledger';

/*
 * npm run bench:import -- --rows 1000000 [--seed N] [--keep]
 * Generates a native-format ledger, imports it with the service into a fresh data directory (in a
 * child process, so peak RSS is the import's), then loads the same file with the sqlite3 shell's
 * .import into an equivalent table, and prints both and the ratio.
 */

const TARGET_ROWS_PER_S = 150_000;
const TARGET_RSS_MB = 400;
const TARGET_RATIO = 3;

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    seed: { type: 'string', default: '1' },
    keep: { type: 'boolean', default: false },
  },
});
const rows = Number(values.rows);
if (!Number.isSafeInteger(rows) || rows < 1) throw new Error('--rows: must be a positive integer');

const dir = mkdtempSync(join(tmpdir(), 'nps-bench-import-'));
const csv = join(dir, 'ledger.csv');
const mb = (b: number) => (b / 1024 / 1024).toFixed(1);
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

try {
  console.log(
    `machine: ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${loadavg()[0]!.toFixed(2)}; node ${process.version}`,
  );
  let t = performance.now();
  const gen = await generateLedger(csv, rows, { seed: Number(values.seed), wallets: 20 });
  console.log(`generated ${fmt(rows)} rows (${mb(gen.bytes)} MB) in ${((performance.now() - t) / 1000).toFixed(1)} s: ${csv}`);

  const child = spawnSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(new URL('./import-child.ts', import.meta.url)), csv, join(dir, 'data')],
    {
      encoding: 'utf8',
      maxBuffer: 1 << 20,
    },
  );
  if (child.status !== 0) throw new Error(`import failed:\n${child.stderr}`);
  const r = JSON.parse(child.stdout.trim().split('\n').pop()!) as {
    rows: number;
    added: number;
    rejected: number;
    ms: number;
    readMs: number;
    rssBefore: number;
    sampledPeak: number;
    vmHwm: number | null;
  };
  if (r.added !== rows || r.rejected !== 0) throw new Error(`expected ${rows} rows added, got ${r.added} added and ${r.rejected} rejected`);
  const rate = (rows / r.ms) * 1000;
  const peak = Math.max(r.sampledPeak, r.vmHwm ?? 0);
  console.log(
    `nps import:     ${fmt(rows)} rows in ${(r.ms / 1000).toFixed(2)} s = ${fmt(rate)} rows/s; peak RSS ${mb(peak)} MB (VmHWM ${r.vmHwm === null ? 'n/a' : mb(r.vmHwm)} MB, sampled ${mb(r.sampledPeak)} MB; ${mb(r.rssBefore)} MB with the service open, before the import)`,
  );
  console.log(
    `  reading and checking ${(r.readMs / 1000).toFixed(2)} s, writing (one transaction) ${((r.ms - r.readMs) / 1000).toFixed(2)} s`,
  );

  // The record's columns (the service's table adds import_id and updated_at), the same unique transaction_id
  // and indexes, and the same pragmas as the service's store.
  const shellDb = join(dir, 'shell.sqlite');
  const script = join(dir, 'shell.sql');
  writeFileSync(
    script,
    `PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
PRAGMA cache_size = -65536;
CREATE TABLE transactions (
  transaction_id TEXT NOT NULL, wallet_id TEXT NOT NULL, request_id TEXT, type TEXT NOT NULL, status TEXT NOT NULL,
  amount TEXT NOT NULL, "to" TEXT, fee_ratio TEXT, fee_fixed TEXT, fee TEXT, er TEXT, amount_actual TEXT, hash TEXT,
  chain_id TEXT NOT NULL, token_id TEXT NOT NULL, created_at INTEGER, confirmed_at INTEGER, completed_at INTEGER);
CREATE UNIQUE INDEX transactions_id_idx ON transactions (transaction_id);
CREATE INDEX transactions_hash_idx ON transactions (hash, chain_id) WHERE hash IS NOT NULL;
CREATE INDEX transactions_request_idx ON transactions (request_id) WHERE request_id IS NOT NULL;
CREATE INDEX transactions_wallet_created_idx ON transactions (wallet_id, created_at);
CREATE INDEX transactions_chain_token_idx ON transactions (chain_id, token_id);
CREATE INDEX transactions_created_idx ON transactions (created_at DESC, transaction_id);
.import --csv --skip 1 ${csv} transactions
`,
  );
  t = performance.now();
  execFileSync('/usr/bin/sqlite3', [shellDb, `.read ${script}`], { stdio: ['ignore', 'ignore', 'inherit'] });
  const shellMs = performance.now() - t;
  const shellCount = Number(execFileSync('/usr/bin/sqlite3', [shellDb, 'SELECT count(*) FROM transactions'], { encoding: 'utf8' }).trim());
  if (shellCount !== rows) throw new Error(`sqlite3 shell loaded ${shellCount} rows, expected ${rows}`);
  const ratio = r.ms / shellMs;
  console.log(`sqlite3 .import: ${fmt(rows)} rows in ${(shellMs / 1000).toFixed(2)} s = ${fmt((rows / shellMs) * 1000)} rows/s`);
  console.log(`ratio nps/sqlite3: ${ratio.toFixed(2)}x`);
  console.log(`store size: nps ${mb(statSync(join(dir, 'data', 'nps.sqlite')).size)} MB, shell ${mb(statSync(shellDb).size)} MB`);
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  console.log(`load average after: ${loadavg()[0]!.toFixed(2)}`);
  console.log(
    `targets: >= ${fmt(TARGET_ROWS_PER_S)} rows/s ${verdict(rate >= TARGET_ROWS_PER_S)}; peak RSS < ${TARGET_RSS_MB} MB ${verdict(peak < TARGET_RSS_MB * 1024 * 1024)}; within ${TARGET_RATIO}x of sqlite3 ${verdict(ratio <= TARGET_RATIO)}`,
  );
} finally {
  if (values.keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
