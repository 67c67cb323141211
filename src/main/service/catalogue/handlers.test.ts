import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Token } from '../../../shared/catalogue';
import type { CallMeta } from '../context';
import { openService } from '../index';
import { good, id, text } from '../ledger/native-rows.test-support';
import { failure, tempService } from '../test-support';

/* A token added with the wrong decimal is corrected, or removed, as long as the ledger's records allow it. */

const meta: CallMeta = { actor: 'ui' };
let svc: ReturnType<typeof tempService>;
beforeEach(() => {
  svc = tempService();
});
afterEach(() => svc.dispose());

const ANJ = '0xcd62b1c403fa761baadfc74c525ce2b51780b184';
const addAnj = (decimal: number) =>
  svc.invoke('catalogue-token-add', { chain_id: 'ETH', symbol: 'ANJ', contract_address: ANJ, decimal }, meta);
const anj = (n: number, amount: string) => good(n, { token_id: 'ETH_ANJ', amount });
const tokenOf = async (token_id: string) => (await svc.invoke('catalogue-tokens-list', { token_id }, meta)).tokens[0];

describe('catalogue-token-update decimal', () => {
  it('changes the decimal while every record of the token fits it, and refuses a decimal a record has more places than, naming it', async () => {
    await addAnj(0);
    // Added with 0 (the file's first rows showed whole amounts): a row of 0.5 ANJ is refused.
    const refused = await svc.invoke('ledger-import', { source: text([anj(1, '12'), anj(2, '0.5')]) }, meta);
    expect(refused.rejections).toEqual([expect.objectContaining({ row_number: 2, reason: '0.5 has 1 decimal places; ETH_ANJ has 0' })]);

    const raised = Token.parse(await svc.invoke('catalogue-token-update', { token_id: 'ETH_ANJ', decimal: 18 }, meta));
    expect(raised).toMatchObject({ token_id: 'ETH_ANJ', decimal: 18 });
    const again = await svc.invoke('ledger-import', { source: text([anj(1, '12'), anj(2, '0.5'), anj(3, '0.000125')]) }, meta);
    expect(again).toMatchObject({ added: 2, unchanged: 1, rejected: 0 });

    // Lowering it below a record's places is refused with the record, and changes nothing.
    const err = await failure(svc.invoke('catalogue-token-update', { token_id: 'ETH_ANJ', decimal: 3, name: 'Aragon' }, meta));
    expect(err.code).toBe(1002);
    expect(err.message).toBe(
      `decimal: 1 record of ETH_ANJ has an amount with more than 3 decimal places (transaction ${id(3)}: 0.000125, 6 places), so ETH_ANJ keeps at least 6`,
    );
    expect(await tokenOf('ETH_ANJ')).toMatchObject({ decimal: 18, name: 'ANJ' });
    const two = await failure(svc.invoke('catalogue-token-update', { token_id: 'ETH_ANJ', decimal: 0 }, meta));
    expect(two.message).toMatch(/^decimal: 2 records of ETH_ANJ have amounts with more than 0 decimal places \(transaction /);

    // Down to what the records show is fine.
    expect(await svc.invoke('catalogue-token-update', { token_id: 'ETH_ANJ', decimal: 6 }, meta)).toMatchObject({ decimal: 6 });
    expect((await failure(svc.invoke('catalogue-token-update', { token_id: 'ETH_ANJ', decimal: 37 }, meta))).message).toBe(
      'decimal: must be an integer from 0 to 36',
    );
  });

  it("counts only the token's own records, and keeps a changed decimal over the next seeding", async () => {
    // A USDT record of 6 places does not stop ETH_USDC (no records) from going to 2.
    await svc.invoke('ledger-import', { source: text([good(1, { amount: '1.123456' })]) }, meta);
    expect(await svc.invoke('catalogue-token-update', { token_id: 'ETH_USDC', decimal: 2 }, meta)).toMatchObject({ decimal: 2 });
    expect((await failure(svc.invoke('catalogue-token-update', { token_id: 'ETH_USDT', decimal: 5 }, meta))).message).toMatch(
      /^decimal: 1 record of ETH_USDT/,
    );
    svc.close();
    const reopened = openService({ dataDir: svc.dataDir });
    try {
      expect((await reopened.invoke('catalogue-tokens-list', { token_id: 'ETH_USDC' }, meta)).tokens[0]?.decimal).toBe(2);
    } finally {
      reopened.close();
    }
  });
});

describe('catalogue-token-remove', () => {
  it('removes a token no record uses; refuses one in use, a native coin and an unknown one', async () => {
    await addAnj(0);
    await svc.invoke('ledger-import', { source: text([anj(1, '12'), anj(2, '7')]) }, meta);
    const used = await failure(svc.invoke('catalogue-token-remove', { token_id: 'ETH_ANJ' }, meta));
    expect(used.message).toBe('token_id: 2 ledger records are in ETH_ANJ; only a token no record uses can be removed');
    expect((await failure(svc.invoke('catalogue-token-remove', { token_id: 'ETH' }, meta))).message).toBe(
      'token_id: ETH is the native coin of ETH; it cannot be removed',
    );
    const unknown = await failure(svc.invoke('catalogue-token-remove', { token_id: 'ETH_NOPE' }, meta));
    expect(unknown.code).toBe(3002);

    // Added twice by mistake: the second, unused, goes; the contract can then be added again.
    const other = '0x' + 'ab'.repeat(20);
    await svc.invoke('catalogue-token-add', { chain_id: 'ETH', symbol: 'UNI-V2', contract_address: other, decimal: 0 }, meta);
    const removed = Token.parse(await svc.invoke('catalogue-token-remove', { token_id: 'ETH_UNI_V2' }, meta));
    expect(removed).toMatchObject({ token_id: 'ETH_UNI_V2', decimal: 0, contract_address: other });
    expect(await tokenOf('ETH_UNI_V2')).toBeUndefined();
    const readded = await svc.invoke(
      'catalogue-token-add',
      { chain_id: 'ETH', symbol: 'UNI-V2', contract_address: other, decimal: 18, token_id: 'ETH_UNI_V2_ABAB' },
      meta,
    );
    expect(readded).toMatchObject({ token_id: 'ETH_UNI_V2_ABAB', decimal: 18 });
    expect(await tokenOf('ETH_ANJ')).toBeDefined();
  });
});
