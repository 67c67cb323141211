import { afterAll, describe, expect, it } from 'vitest';
import { Token } from '../../shared/catalogue';
import { openService } from '../service/index';
import { tempService } from '../service/test-support';
import { nps } from './nps.test-support';

describe('npm run nps -- chains / tokens', () => {
  const svc = tempService();
  svc.close();
  afterAll(() => svc.dispose());
  const dir = ['--data-dir', svc.dataDir];

  it('sets the source fields of a chain and a token; a bad value is refused in one line naming the field and changes nothing', async () => {
    const chain = await nps(['chains', 'set', 'SETH', 'enabled=true', 'confirming_threshold=6', ...dir]);
    expect(chain.code).toBe(0);
    expect(chain.out).toContain('enabled=yes confirming_threshold=6');
    const token = await nps(['tokens', 'set', 'ETH_USDT', 'can_deposit=false', 'dust_threshold=0.5', ...dir]);
    expect(token.code).toBe(0);
    const bad = await nps(['chains', 'set', 'ETH', 'confirming_threshold=-1', ...dir]);
    expect(bad).toMatchObject({ code: 1, err: 'error 1002: confirming_threshold: must be an integer >= 0\n' });
    const unknown = await nps(['tokens', 'set', 'ETH_USDT', 'decimals=8', ...dir]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(
      /^"decimals=8": expected FIELD=VALUE with FIELD one of decimal, dust_threshold, can_deposit, can_withdraw, name\n$/,
    );
    // A decimal is a whole number; one no record stands against is changed.
    expect(await nps(['tokens', 'set', 'ETH_USDC', 'decimal=six', ...dir])).toMatchObject({
      code: 1,
      err: 'decimal: must be a whole number\n',
    });
    const decimal = await nps(['tokens', 'set', 'ETH_USDC', 'decimal=8', ...dir]);
    expect(decimal.code).toBe(0);
    expect(decimal.out).toMatch(/^Changed ETH_USDC:\nETH_USDC +ETH +USDC +decimal=8 /);

    const list = await nps(['tokens', 'list', '--chain-id', 'ETH', '--json', ...dir]);
    const tokens = Token.array().parse(JSON.parse(list.out));
    expect(tokens.find((t) => t.token_id === 'ETH_USDT')).toMatchObject({ can_deposit: false, can_withdraw: true, dust_threshold: '0.5' });

    // Kept in the store, and over the next start's seeding.
    const again = openService({ dataDir: svc.dataDir });
    try {
      expect((await again.invoke('catalogue-chains-list', { chain_id: 'SETH' }, { actor: 'cli' })).chains[0]).toMatchObject({
        enabled: true,
        confirming_threshold: 6,
      });
      expect((await again.invoke('catalogue-chains-list', { chain_id: 'ETH' }, { actor: 'cli' })).chains[0]?.confirming_threshold).toBe(12);
    } finally {
      again.close();
    }
  }, 90_000);
  it('adds a chain the catalogue lacks (with its coin) and a token by its contract; both outlive the next seeding; a duplicate or a bad contract is refused', async () => {
    const chain = await nps([
      'chains',
      'add',
      'MANTLE',
      '--symbol',
      'MNT',
      '--name',
      'Mantle',
      '--explorer-tx-url',
      'https://mantlescan.xyz/tx/{hash}',
      ...dir,
    ]);
    expect(chain.code).toBe(0);
    expect(chain.out).toMatch(/^Added MANTLE:\nMANTLE +ETH +enabled=yes/);
    const token = await nps([
      'tokens',
      'add',
      'ETH',
      '--contract',
      '0x6B175474E89094C44Da98b954EedeAC495271d0F',
      '--symbol',
      'DAI',
      '--decimal',
      '18',
      ...dir,
    ]);
    expect(token.code).toBe(0);
    expect(token.out).toMatch(/Added ETH_DAI:\nETH_DAI +ETH +DAI +decimal=18/);
    const twice = await nps([
      'tokens',
      'add',
      'ETH',
      '--contract',
      '0x6b175474e89094c44da98b954eedeac495271d0f',
      '--symbol',
      'DAI2',
      '--decimal',
      '18',
      ...dir,
    ]);
    expect(twice).toMatchObject({ code: 1, err: 'error 1002: contract_address: ETH already has this contract as ETH_DAI\n' });
    const bad = await nps(['tokens', 'add', 'TRON', '--contract', '0xdead', '--symbol', 'X', '--decimal', '6', ...dir]);
    expect(bad.err).toMatch(/^error 1002: contract_address: "0xdead" is not a TRON address/);
    // Added by mistake and used by no record: removed (a native coin is not).
    const mistake = await nps(['tokens', 'add', 'ETH', '--contract', '0x' + 'ab'.repeat(20), '--symbol', 'OOPS', '--decimal', '0', ...dir]);
    expect(mistake.code).toBe(0);
    const removed = await nps(['tokens', 'remove', 'ETH_OOPS', ...dir]);
    expect(removed.code).toBe(0);
    expect(removed.out).toMatch(/^Removed ETH_OOPS:\n/);
    expect(await nps(['tokens', 'remove', 'MANTLE', ...dir])).toMatchObject({
      code: 1,
      err: 'error 1002: token_id: MANTLE is the native coin of MANTLE; it cannot be removed\n',
    });
    const missing = await nps(['tokens', 'add', 'ETH', '--symbol', 'X', ...dir]);
    expect(missing).toMatchObject({ code: 1 });
    expect(missing.err).toMatch(/^--contract is required/);

    const again = openService({ dataDir: svc.dataDir });
    try {
      const tokens = (await again.invoke('catalogue-tokens-list', { chain_id: 'MANTLE' }, { actor: 'cli' })).tokens;
      expect(tokens).toEqual([expect.objectContaining({ token_id: 'MANTLE', symbol: 'MNT', decimal: 18, is_native: true })]);
      expect((await again.invoke('catalogue-tokens-list', { token_id: 'ETH_OOPS' }, { actor: 'cli' })).total).toBe(0);
      expect((await again.invoke('catalogue-tokens-list', { token_id: 'ETH_DAI' }, { actor: 'cli' })).tokens[0]).toMatchObject({
        contract_address: '0x6B175474E89094C44Da98b954EedeAC495271d0F',
        is_native: false,
      });
    } finally {
      again.close();
    }
  }, 90_000);
});
