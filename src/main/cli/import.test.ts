import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openDb } from '../service/db/open';
import { DB_FILE } from '../service/index';
import { migrationsBefore } from '../service/test-support';

const root = join(import.meta.dirname, '../../..');
const dataDir = mkdtempSync(join(tmpdir(), 'nps-import-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function nps(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['out/main/cli.js', ...args], { cwd: root });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npm run nps -- import', () => {
  it('prints the report with every rejected row and exits 0 when rows landed; exits 1 when nothing could be imported', async () => {
    const ok = await nps('import', 'resources/samples/native-with-bad-rows.csv', '--data-dir', dataDir);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/rows 12: added 8, updated 0, unchanged 0, rejected 4/);
    expect(ok.stdout).toMatch(/read as: decimal comma, times in UTC/);
    expect(ok.stdout).toMatch(/row 9, status = "Done": "Done" is not a status/);
    expect(ok.stdout).toMatch(/header row is not counted/);

    // One after the other: two commands at once on one folder take turns, and the second says it waits.
    const bad = await nps('import', 'resources/samples/bad-header.csv', '--data-dir', dataDir);
    const preview = await nps('import', 'resources/samples/native-with-bad-rows.csv', '--data-dir', dataDir, '--dry-run', '--json');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error 1002: bad-header\.csv: the header fits no known format/);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    expect(preview.code).toBe(0);
    expect(JSON.parse(preview.stdout)).toMatchObject({ dry_run: true, import_id: null, added: 0, unchanged: 8, rejected: 4 });
  });

  it('an explorer export without a wallet is refused naming --wallet and --wallet-id; with --wallet NAME it imports', async () => {
    const file = 'resources/samples/tronscan-token-transfers.csv';
    const refused = await nps('import', file, '--data-dir', dataDir);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^error 1002: tronscan-token-transfers\.csv: the file has no wallet_id column: say which wallet every row goes to \(give --wallet NAME or --wallet-id W\); nothing was imported\n$/,
    );
    const named = await nps('import', file, '--wallet', 'Tron hot', '--data-dir', dataDir);
    expect(named.code).toBe(0);
    expect(named.stdout).toMatch(/rows 8: added 8/);
  });
});

describe('a data folder made by an earlier version', () => {
  it('is brought up to date once, and the command says so on stderr before it runs', async () => {
    const old = mkdtempSync(join(tmpdir(), 'nps-upgrade-cli-'));
    try {
      openDb({ file: join(old, DB_FILE), migrationsFolder: migrationsBefore(old, '_transactions_id_index') }).$client.close();
      const first = await nps('import', 'resources/samples/native-ledger.csv', '--data-dir', old);
      expect(first.code).toBe(0);
      expect(first.stderr).toMatch(/^Bringing the data store up to date \(0004_transactions_id_index, /);
      expect(first.stdout).toMatch(/rows 30: added 30/);
      const second = await nps('import', 'resources/samples/native-ledger.csv', '--data-dir', old);
      expect(second.stderr).toBe('');
      expect(second.stdout).toMatch(/rows 30: added 0, updated 0, unchanged 30/);
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
  });
});
