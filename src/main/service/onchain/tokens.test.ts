import { type Address, type Hash } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failure, tempService } from '../test-support';
import { sayFor } from '../said';
import { invokeHandler } from '../handlers';
import { deployToken, sendToken, startAnvil, type Anvil } from './anvil.test-support';

/*
 * Token details from their contracts, and spam ignored: the Etherscan ERC-20 export of a wallet
 * that received a token the catalogue lacks and an airdropped spam token, on a real node (anvil,
 * chain id 1) with OpenZeppelin's ERC-20 deployed twice.
 */

const ui = { actor: 'ui' as const };
const W = 'c1a2b3c4-d5e6-4f70-8a91-b2c3d4e5f607';

let anvil: Anvil;
let acc: Address[];
let real: Address;
let spam: Address;
const hashes: Hash[] = [];

beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1 });
  acc = anvil.accounts;
  real = await deployToken(anvil, 'Useful Dollar', 'UDOL', '1000000', acc[0]!);
  spam = await deployToken(anvil, 'Visit claim-rewards.example to claim', 'CLAIM', '1000000000', acc[0]!);
  hashes.push(await sendToken(anvil, real, acc[0]!, acc[1]!, '12.5'));
  hashes.push(await sendToken(anvil, spam, acc[0]!, acc[1]!, '5000'));
  hashes.push(await sendToken(anvil, spam, acc[0]!, acc[1]!, '7000'));
  hashes.push(await sendToken(anvil, real, acc[1]!, acc[2]!, '2.25'));
}, 60_000);
afterAll(() => anvil?.stop());

/** The wallet's ERC-20 transfer export, as Etherscan writes it. */
function export_(): string {
  const head =
    '"Txhash","Blockno","UnixTimestamp","DateTime (UTC)","From","To","TokenValue","USDValueDayOfTx","ContractAddress","TokenName","TokenSymbol"';
  const row = (h: Hash, from: Address, to: Address, value: string, contract: Address, name: string, symbol: string) =>
    [h, '5', '1768435200', '2026-01-15 00:00:00', from.toLowerCase(), to.toLowerCase(), value, '$0', contract.toLowerCase(), name, symbol]
      .map((c) => `"${c}"`)
      .join(',');
  return [
    head,
    row(hashes[0]!, acc[0]!, acc[1]!, '12.5', real, 'Useful Dollar', 'UDOL'),
    row(hashes[1]!, acc[0]!, acc[1]!, '5000', spam, 'Visit claim-rewards.example to claim', 'CLAIM'),
    row(hashes[2]!, acc[0]!, acc[1]!, '7000', spam, 'Visit claim-rewards.example to claim', 'CLAIM'),
    row(hashes[3]!, acc[1]!, acc[2]!, '2.25', real, 'Useful Dollar', 'UDOL'),
  ].join('\n');
}

describe('token details from their contracts; spam tokens ignored', () => {
  const svc = tempService();
  afterAll(() => svc.dispose());
  const importIt = () =>
    svc.invoke(
      'ledger-import',
      { source: { name: 'erc20.csv', text: export_() }, chain_id: 'ETH', wallet_id: W, wallet_address: acc[1]! },
      ui,
    );

  it('reads symbol, name and decimals from the contracts through the chain’s node; without a node it says how to set one', async () => {
    const input = { chain_id: 'ETH', contract_addresses: [real] };
    const none = await failure(svc.invoke('onchain-token-details', input, ui));
    expect(none.message).toBe('chain_id: no node is set for ETH (npm run nps -- chains rpc ETH URL)');
    // The window names its screen instead of the command (the handler's own sentence carries both).
    const raw = await failure(invokeHandler(svc.handlers, 'onchain-token-details', input, ui));
    expect(sayFor(raw.message, 'window')).toBe('chain_id: no node is set for ETH (Catalogue → Chains, the Node column)');
    await svc.invoke('onchain-node-set', { chain_id: 'ETH', url: anvil.url }, ui);
    const { tokens } = await svc.invoke('onchain-token-details', { chain_id: 'ETH', contract_addresses: [real, acc[5]!] }, ui);
    expect(tokens).toEqual([
      { contract_address: real, symbol: 'UDOL', name: 'Useful Dollar', decimal: 18, error: '' },
      {
        contract_address: acc[5]!,
        symbol: '',
        name: '',
        decimal: null,
        error: 'the contract answers neither symbol() nor decimals(): not an ERC-20 token',
      },
    ]);
  }, 30_000);

  it('an ignored contract’s rows are skipped, counted and listed; the others stay unknown until added', async () => {
    const first = await importIt();
    expect(first).toMatchObject({ rows_total: 4, added: 0, rejected: 4, ignored: 0, ignored_tokens: [] });
    expect(first.unknown_tokens.map((t) => [t.symbol, t.rows])).toEqual([
      ['UDOL', 2],
      ['CLAIM', 2],
    ]);

    const ignored = await svc.invoke('catalogue-token-ignore', { chain_id: 'ETH', contract_address: spam, symbol: 'CLAIM' }, ui);
    expect(ignored).toMatchObject({ chain_id: 'ETH', contract_address: spam.toLowerCase(), symbol: 'CLAIM' });
    const second = await importIt();
    expect(second).toMatchObject({ rows_total: 4, added: 0, rejected: 2, ignored: 2 });
    expect(second.ignored_tokens).toEqual([{ chain_id: 'ETH', contract_address: spam.toLowerCase(), symbol: 'CLAIM', rows: 2 }]);
    expect(second.unknown_tokens.map((t) => t.symbol)).toEqual(['UDOL']);
    expect(second.message).toContain(`2 rows of 1 ignored token skipped (CLAIM ${spam.toLowerCase()}).`);

    // The detected first rows say so too, before anything is imported.
    const detect = await svc.invoke(
      'ledger-detect',
      { source: { name: 'erc20.csv', text: export_() }, chain_id: 'ETH', wallet_id: W, wallet_address: acc[1]! },
      ui,
    );
    expect(detect.ignored_tokens).toEqual(second.ignored_tokens);
    expect(detect.parsed[1]!.problem?.reason).toBe('skipped: the contract is ignored on ETH (spam)');

    // The useful one added from what its contract says: every row accounted for.
    const { tokens } = await svc.invoke('onchain-token-details', { chain_id: 'ETH', contract_addresses: [real] }, ui);
    await svc.invoke(
      'catalogue-token-add',
      { chain_id: 'ETH', contract_address: real, symbol: tokens[0]!.symbol, decimal: tokens[0]!.decimal! },
      ui,
    );
    const third = await importIt();
    expect(third).toMatchObject({ rows_total: 4, added: 2, rejected: 0, ignored: 2, unknown_tokens: [] });
    expect(third.added + third.updated + third.unchanged + third.rejected + third.ignored).toBe(third.rows_total);
    // Again, the same file: nothing changes, and the ignored rows are counted again.
    expect(await importIt()).toMatchObject({ rows_total: 4, added: 0, unchanged: 2, ignored: 2 });

    // A contract the catalogue has cannot be ignored; one ignored can be let go.
    expect((await failure(svc.invoke('catalogue-token-ignore', { chain_id: 'ETH', contract_address: real }, ui))).message).toBe(
      "contract_address: it is the catalogue's token ETH_UDOL on ETH; remove the token first (only a contract the catalogue lacks is ignored)",
    );
    await svc.invoke('catalogue-token-unignore', { chain_id: 'ETH', contract_address: spam.toUpperCase().replace('0X', '0x') }, ui);
    expect(await svc.invoke('catalogue-ignored-list', {}, ui)).toEqual([]);
    expect((await importIt()).rejected).toBe(2);
  }, 30_000);
});
