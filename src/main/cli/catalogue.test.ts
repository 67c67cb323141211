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
    expect(unknown.err).toMatch(/^"decimals=8": expected FIELD=VALUE with FIELD one of dust_threshold, can_deposit, can_withdraw, name\n$/);

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
});
