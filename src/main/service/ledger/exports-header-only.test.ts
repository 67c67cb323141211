import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallMeta } from '../context';
import { tempService } from '../test-support';

/*
 * Real exports with a header and no rows (test/fixtures/exports, sources in its README): BscScan's
 * normal and internal transaction exports as the explorer writes them ("DateTime" without
 * "(UTC)", a CurrentValue column named after the day's price), and Etherscan's internal export of
 * a wallet that had none. The file's columns are read exactly as for a file with rows, so the
 * preset and the chain are the ones its rows would get; nothing is imported, and the summary says so.
 */

const DIR = join(__dirname, '../../../../test/fixtures/exports');
const FACTS = JSON.parse(readFileSync(join(DIR, 'facts.json'), 'utf8')) as Record<string, { rows: number; nativeSymbol: string | null }>;
const meta: CallMeta = { actor: 'cli' };
const WALLET = '5a1b7c3e-1f2d-4e5a-9b8c-7d6e5f4a3b2c';

let svc: ReturnType<typeof tempService>;
beforeEach(() => {
  svc = tempService();
});
afterEach(() => svc.dispose());

describe('real exports with no rows', () => {
  it.each([
    ['bscscan-header-only-txlist.csv', 'etherscan'],
    ['bscscan-header-only-internal.csv', 'etherscan-internal'],
  ])(
    '%s: read as %s on BNB Smart Chain from its Value_IN(BNB), never ETH; nothing imported, and the summary says why',
    async (name, preset) => {
      expect(FACTS[name]!.rows).toBe(0);
      const source = { path: join(DIR, name) };
      const detect = await svc.invoke('ledger-detect', { source, wallet_id: WALLET }, meta);
      expect(detect).toMatchObject({ preset, read_as: { chain_id: 'BSC_BNB' } });

      const report = await svc.invoke('ledger-import', { source, wallet_id: WALLET }, meta);
      expect(report).toMatchObject({
        preset,
        rows_total: 0,
        added: 0,
        updated: 0,
        unchanged: 0,
        rejected: 0,
        read_as: { chain_id: 'BSC_BNB' },
      });
      expect(report.message).toMatch(/^The file has no data rows; nothing was imported\. Columns not read: Blockno, DateTime, /);
      expect((await svc.invoke('transactions-list', { page_size: 10, page: 1 }, meta)).total).toBe(0);
    },
  );

  it('Etherscan’s internal export with no rows: ETH is the coin of several chains, so the chain is asked, then read as given', async () => {
    const name = 'etherscan-0xf98c-internal.csv';
    expect(FACTS[name]!.rows).toBe(0);
    const source = { path: join(DIR, name) };
    const detect = await svc.invoke('ledger-detect', { source, wallet_id: WALLET }, meta);
    expect(detect.read_as.chain_id).toBeNull();
    expect(detect.needs.find((n) => n.field === 'chain_id')?.options).toEqual(expect.arrayContaining(['ETH', 'ARBITRUM_ETH', 'BASE_ETH']));

    const report = await svc.invoke('ledger-import', { source, wallet_id: WALLET, chain_id: 'ETH' }, meta);
    expect(report).toMatchObject({ preset: 'etherscan-internal', rows_total: 0, added: 0, read_as: { chain_id: 'ETH' } });
    expect(report.message).toMatch(/^The file has no data rows; nothing was imported\./);
  });

  it('the BscScan header names its coin: BNB, the catalogue’s BNB Smart Chain', () => {
    expect(FACTS['bscscan-header-only-txlist.csv']!.nativeSymbol).toBe('BNB');
    expect(FACTS['bscscan-header-only-internal.csv']!.nativeSymbol).toBe('BNB');
  });
});
