import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WalletSummary } from '../../shared/wallets';
import { tempService } from '../service/test-support';
import { nps } from './nps.test-support';

const TRONSCAN = join(import.meta.dirname, '../../../resources/samples/tronscan-token-transfers.csv');

describe('npm run nps -- wallets', () => {
  const svc = tempService();
  svc.close();
  afterAll(() => svc.dispose());
  const dir = ['--data-dir', svc.dataDir];
  const list = async () => WalletSummary.array().parse(JSON.parse((await nps(['wallets', 'list', '--json', ...dir])).out));

  it('creates, renames and gives addresses to a wallet, imports into it by name; refusals name the field', async () => {
    const created = await nps(['wallets', 'create', 'Treasury', '--notes', 'cold', ...dir]);
    expect(created.code).toBe(0);
    expect(created.out).toMatch(/^Created:\nTreasury +[0-9a-f-]{36} {2}0 records\n {2}notes: cold\n$/);
    const dup = await nps(['wallets', 'create', 'treasury', ...dir]);
    expect(dup.code).toBe(1);
    expect(dup.err).toMatch(/^error 1002: name: a wallet is already named "treasury"/);

    expect((await nps(['wallets', 'rename', 'TREASURY', 'Tron hot', ...dir])).code).toBe(0);
    const added = await nps(['wallets', 'address', 'add', 'Tron hot', 'TRON', 'TWSjYGnedK9bWn4ov6LeXR9euGKbPoCcE5', ...dir]);
    expect(added.out).toContain('  TRON           TWSjYGnedK9bWn4ov6LeXR9euGKbPoCcE5');
    const bad = await nps(['wallets', 'address', 'add', 'Tron hot', 'ETH', '0x12', ...dir]);
    expect(bad).toMatchObject({ code: 1, err: expect.stringMatching(/^error 1002: address: "0x12" is not an EVM address on ETH/) });
    const nobody = await nps(['wallets', 'rename', 'Nobody', 'X', ...dir]);
    expect(nobody.err).toMatch(/^WALLET: no wallet is named "Nobody"/);

    const imported = await nps(['import', TRONSCAN, '--wallet', 'tron HOT', ...dir]);
    expect(imported.code).toBe(0);
    // The same export into another wallet would book every transfer twice: refused, naming the wallet whose address it is.
    const twice = await nps(['import', TRONSCAN, '--wallet', 'Fresh', ...dir]);
    expect(twice).toMatchObject({
      code: 1,
      err: expect.stringMatching(
        /this is the export of TWSjYGnedK9bWn4ov6LeXR9euGKbPoCcE5 on TRON, the address of wallet "Tron hot": .* booked twice/,
      ),
    });
    const wallets = await list();
    expect(wallets.map((w) => [w.name, w.transactions])).toEqual([['Tron hot', 8]]);
    expect(wallets[0]!.addresses).toEqual([{ chain_id: 'TRON', address: 'TWSjYGnedK9bWn4ov6LeXR9euGKbPoCcE5', label: '' }]);
    const removed = await nps([
      'wallets',
      'address',
      'remove',
      wallets[0]!.wallet_id,
      'TRON',
      'TWSjYGnedK9bWn4ov6LeXR9euGKbPoCcE5',
      ...dir,
    ]);
    expect(removed.code).toBe(0);
    expect((await list())[0]!.addresses).toEqual([]);

    // Free again: the import goes into Fresh, and the export's address becomes Fresh's.
    const fresh = await nps(['import', TRONSCAN, '--wallet', 'Fresh', ...dir]);
    expect(fresh.code).toBe(0);
    const after = await list();
    expect(after.map((w) => [w.name, w.transactions, w.addresses.map((a) => a.address)])).toEqual([
      ['Fresh', 8, ['TWSjYGnedK9bWn4ov6LeXR9euGKbPoCcE5']],
      ['Tron hot', 8, []],
    ]);
  }, 90_000);
});
