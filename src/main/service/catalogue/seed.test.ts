import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openService } from '../index';
import { defaultResourcesDir } from '../paths';
import { tempService } from '../test-support';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

const counts = (s: ReturnType<typeof tempService>) => ({
  chains: (s.ctx.db.$client.prepare('SELECT count(*) AS n FROM chains').get() as { n: number }).n,
  tokens: (s.ctx.db.$client.prepare('SELECT count(*) AS n FROM tokens').get() as { n: number }).n,
});

describe('catalogue seeding', () => {
  it('seeds every chain and token of the catalogue file at first start', () => {
    const s = tempService();
    cleanups.push(s.dispose);
    const file = JSON.parse(readFileSync(join(defaultResourcesDir(), 'catalogue.json'), 'utf8'));
    expect(counts(s)).toEqual({ chains: file.chains.length, tokens: file.tokens.length });
    expect(counts(s)).toEqual({ chains: 11, tokens: 24 });
  });

  it('a restart neither duplicates rows nor undoes a user change', async () => {
    const first = tempService();
    cleanups.push(first.dispose);
    await first.invoke('catalogue-chain-update', { chain_id: 'ETH', confirmations: 64 }, { actor: 'ui' });
    await first.invoke('catalogue-token-update', { token_id: 'ETH_USDT', dust_threshold: '0.5' }, { actor: 'ui' });
    const before = counts(first);
    first.close();

    const again = openService({ dataDir: first.dataDir });
    cleanups.push(() => again.close());
    expect(counts({ ...again, dataDir: first.dataDir, dispose: () => {} })).toEqual(before);
    const eth = await again.invoke('catalogue-chains-list', { chain_id: 'ETH' }, { actor: 'ui' });
    expect(eth.list[0]?.confirmations).toBe(64);
    const usdt = await again.invoke('catalogue-tokens-list', { token_id: 'ETH_USDT' }, { actor: 'ui' });
    expect(usdt.list[0]?.dust_threshold).toBe('0.5');
    // Rows the user did not touch still follow the file.
    const tron = await again.invoke('catalogue-chains-list', { chain_id: 'TRON' }, { actor: 'ui' });
    expect(tron.list[0]?.confirmations).toBe(19);
  });

  it('a newer catalogue file refreshes untouched rows and adds new ones, but keeps changed rows', async () => {
    const resources = mkdtempSync(join(tmpdir(), 'nps-res-'));
    cpSync(defaultResourcesDir(), resources, { recursive: true });
    const first = tempService({ resourcesDir: resources });
    cleanups.push(first.dispose);
    await first.invoke('catalogue-chain-update', { chain_id: 'ETH', confirmations: 64 }, { actor: 'ui' });
    first.close();

    const file = JSON.parse(readFileSync(join(resources, 'catalogue.json'), 'utf8'));
    for (const c of file.chains) c.confirmations = 99;
    file.tokens.push({ ...file.tokens.find((t: { token_id: string }) => t.token_id === 'ETH_USDT'), token_id: 'ETH_DAI', symbol: 'DAI', name: 'Dai', contract_address: '0x6B175474E89094C44Da98b954EedeAC495271d0F', decimals: 18 });
    writeFileSync(join(resources, 'catalogue.json'), JSON.stringify(file));

    const again = openService({ dataDir: first.dataDir, resourcesDir: resources });
    cleanups.push(() => again.close());
    const chains = await again.invoke('catalogue-chains-list', { page_size: 100 }, { actor: 'ui' });
    expect(chains.list.find((c) => c.chain_id === 'ETH')?.confirmations).toBe(64);
    expect(chains.list.find((c) => c.chain_id === 'TRON')?.confirmations).toBe(99);
    expect((await again.invoke('catalogue-tokens-list', { token_id: 'ETH_DAI' }, { actor: 'ui' })).total).toBe(1);
  });

  it('an edit of an unknown row names it', async () => {
    const s = tempService();
    cleanups.push(s.dispose);
    await expect(s.invoke('catalogue-chain-update', { chain_id: 'NOPE', confirmations: 1 }, { actor: 'ui' })).rejects.toMatchObject({ code: 3001 });
    await expect(s.invoke('catalogue-token-update', { token_id: 'NOPE', name: 'x' }, { actor: 'ui' })).rejects.toMatchObject({ code: 3002 });
  });
});
