import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
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
});
