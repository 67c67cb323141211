import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { generateLedger } from '../../../bench/generate-ledger';
import { nps } from './nps.test-support';

const root = join(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'nps-ledger-export-'));
const data = join(dir, 'data');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const WALLET = '0a3dc32f-e920-44aa-8eed-12dc87e145f0';
const exportsDir = join(root, 'test/fixtures/exports');

describe('npm run nps -- ledger export', () => {
  it('writes the ledger in the native format, CSV or JSON, filtered; importing either again changes nothing', async () => {
    for (const f of ['etherscan-0x003dc-txlist.csv', 'etherscan-0x003dc-internal.csv']) {
      const r = await nps(['import', join(exportsDir, f), '--chain', 'ETH', '--wallet-id', WALLET, '--data-dir', data]);
      expect(r.code).toBe(0);
    }
    await nps(['import', join(root, 'resources/samples/native-ledger.csv'), '--data-dir', data]);

    const csv = join(dir, 'ledger.csv');
    const all = await nps(['ledger', 'export', '--out', csv, '--data-dir', data]);
    expect(all.err).toMatch(/^Exported 560 records to /);
    const rows = Papa.parse<Record<string, string>>(readFileSync(csv, 'utf8'), { header: true, skipEmptyLines: true }).data;
    expect(rows).toHaveLength(560);
    // The explorer's exact amounts, as its file wrote them (facts.json is read from the file itself).
    const facts = JSON.parse(readFileSync(join(exportsDir, 'facts.json'), 'utf8')) as Record<
      string,
      { amounts: { hash: string; column: string; raw: string }[] }
    >;
    for (const a of facts['etherscan-0x003dc-txlist.csv']!.amounts.filter((x) => x.column.startsWith('Value_'))) {
      expect(rows.some((x) => x.hash === a.hash && x.amount === a.raw && x.token_id === 'ETH' && /^\d{13}$/.test(x.created_at!))).toBe(
        true,
      );
    }
    const again = await nps(['import', csv, '--json', '--data-dir', data]);
    expect(JSON.parse(again.out)).toMatchObject({ preset: 'native', rows_total: 560, added: 0, updated: 0, unchanged: 560, rejected: 0 });

    const json = await nps(['ledger', 'export', '--json', '--wallet-id', WALLET, '--chain', 'ETH', '--data-dir', data]);
    const records = JSON.parse(json.out) as { wallet_id: string; chain_id: string; created_at: number | null; amount: string }[];
    expect(records).toHaveLength(530);
    expect(records.every((r) => r.wallet_id === WALLET && r.chain_id === 'ETH' && typeof r.created_at === 'number')).toBe(true);
    const jsonFile = join(dir, 'ledger.json');
    await nps(['ledger', 'export', '--json', '--wallet-id', WALLET, '--out', jsonFile, '--data-dir', data]);
    const back = await nps(['import', jsonFile, '--json', '--data-dir', data]);
    expect(JSON.parse(back.out)).toMatchObject({ format: 'json', added: 0, updated: 0, unchanged: 530 });

    const none = await nps(['ledger', 'export', '--json', '--token', 'NOPE', '--data-dir', data]);
    expect(JSON.parse(none.out)).toEqual([]);
  }, 120_000);

  it('a large export leaves no listener behind (no MaxListenersExceededWarning); a failed one leaves no partial file where the ledger should be', async () => {
    const big = join(dir, 'big');
    const csv = join(dir, 'big.csv');
    await generateLedger(csv, 60_000, { seed: 3, wallets: 2 });
    expect((await nps(['import', csv, '--data-dir', big])).code).toBe(0);
    const out = join(dir, 'big-export.csv');
    const exported = await nps(['ledger', 'export', '--out', out, '--data-dir', big]);
    expect(exported.err.trim()).toBe(`Exported 60000 records to ${out}`);
    expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(60_001);

    // Onto a disk that fills (a 256 KiB tmpfs, where the tests may mount): one line, and the file
    // that was there before is still there, whole; nothing half-written beside it.
    const small = join(dir, 'small-disk');
    mkdirSync(small);
    if (process.getuid?.() !== 0 || spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', small]).status !== 0) return;
    try {
      writeFileSync(join(small, 'ledger.csv'), 'the export of last month\n');
      const failed = await nps(['ledger', 'export', '--out', join(small, 'ledger.csv'), '--data-dir', big]);
      expect(failed.code).toBe(1);
      expect(failed.err.trim().split('\n')).toEqual([expect.stringMatching(/ENOSPC/)]);
      expect(readdirSync(small)).toEqual(['ledger.csv']);
      expect(readFileSync(join(small, 'ledger.csv'), 'utf8')).toBe('the export of last month\n');
    } finally {
      spawnSync('umount', [small]);
    }
  }, 120_000);
});
