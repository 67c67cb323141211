import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openService } from '../index';
import { defaultResourcesDir } from '../paths';
import { openDb } from '../db/open';
import { localStoreChanges } from '../engine/index';
import { migrationsBefore, tempService } from '../test-support';
import { getChain, getToken } from './repository';

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
    await first.invoke('catalogue-chain-update', { chain_id: 'ETH', confirming_threshold: 64, enabled: false }, { actor: 'ui' });
    await first.invoke('catalogue-token-update', { token_id: 'ETH_USDT', dust_threshold: '0.5', can_deposit: false }, { actor: 'ui' });
    const before = counts(first);
    first.close();

    const again = openService({ dataDir: first.dataDir });
    cleanups.push(() => again.close());
    expect(counts({ ...again, dataDir: first.dataDir, dispose: () => {} })).toEqual(before);
    const eth = await again.invoke('catalogue-chains-list', { chain_id: 'ETH' }, { actor: 'ui' });
    expect(eth.chains[0]).toMatchObject({ confirming_threshold: 64, enabled: false });
    const usdt = await again.invoke('catalogue-tokens-list', { token_id: 'ETH_USDT' }, { actor: 'ui' });
    expect(usdt.tokens[0]).toMatchObject({ dust_threshold: '0.5', can_deposit: false, can_withdraw: true });
    // Rows the user did not touch still follow the file.
    const tron = await again.invoke('catalogue-chains-list', { chain_id: 'TRON' }, { actor: 'ui' });
    expect(tron.chains[0]?.confirming_threshold).toBe(19);
  });

  it('a newer catalogue file refreshes untouched rows and adds new ones, but keeps changed rows', async () => {
    const resources = mkdtempSync(join(tmpdir(), 'nps-res-'));
    cpSync(defaultResourcesDir(), resources, { recursive: true });
    const first = tempService({ resourcesDir: resources });
    cleanups.push(first.dispose);
    await first.invoke('catalogue-chain-update', { chain_id: 'ETH', confirming_threshold: 64 }, { actor: 'ui' });
    first.close();

    const file = JSON.parse(readFileSync(join(resources, 'catalogue.json'), 'utf8'));
    for (const c of file.chains) c.confirming_threshold = 99;
    file.tokens.push({
      ...file.tokens.find((t: { token_id: string }) => t.token_id === 'ETH_USDT'),
      token_id: 'ETH_DAI',
      symbol: 'DAI',
      name: 'Dai',
      contract_address: '0x6B175474E89094C44Da98b954EedeAC495271d0F',
      decimal: 18,
    });
    writeFileSync(join(resources, 'catalogue.json'), JSON.stringify(file));

    const again = openService({ dataDir: first.dataDir, resourcesDir: resources });
    cleanups.push(() => again.close());
    const chains = await again.invoke('catalogue-chains-list', { page_size: 100 }, { actor: 'ui' });
    expect(chains.chains.find((c) => c.chain_id === 'ETH')?.confirming_threshold).toBe(64);
    expect(chains.chains.find((c) => c.chain_id === 'TRON')?.confirming_threshold).toBe(99);
    expect((await again.invoke('catalogue-tokens-list', { token_id: 'ETH_DAI' }, { actor: 'ui' })).total).toBe(1);
  });

  it('a seed that changed the catalogue is announced on its topic, for the other services on the store; an unchanged file is not', () => {
    const resources = mkdtempSync(join(tmpdir(), 'nps-res-'));
    cleanups.push(() => rmSync(resources, { recursive: true, force: true }));
    cpSync(defaultResourcesDir(), resources, { recursive: true });
    const changes = localStoreChanges();
    const heard: string[] = [];
    changes.on('catalogue', (_topic, detail) => heard.push((JSON.parse(detail!) as { change: { what: string } }).change.what));
    const first = tempService({ resourcesDir: resources, changes });
    cleanups.push(first.dispose);
    first.close();
    expect(heard).toEqual(["The catalogue updated from the app's list of chains and tokens"]);

    openService({ dataDir: first.dataDir, resourcesDir: resources, changes }).close();
    expect(heard).toHaveLength(1);

    const file = JSON.parse(readFileSync(join(resources, 'catalogue.json'), 'utf8'));
    file.chains.find((c: { chain_id: string }) => c.chain_id === 'TRON').confirming_threshold = 20;
    writeFileSync(join(resources, 'catalogue.json'), JSON.stringify(file));
    openService({ dataDir: first.dataDir, resourcesDir: resources, changes }).close();
    expect(heard).toHaveLength(2);
  });

  it('reopening a store whose catalogue file has not changed writes nothing', () => {
    const first = tempService();
    cleanups.push(first.dispose);
    first.close();
    const again = openService({ dataDir: first.dataDir });
    cleanups.push(() => again.close());
    expect(again.ctx.db.$client.prepare('SELECT total_changes()').pluck().get()).toBe(0);
  });

  it('bad edits are refused naming the field, and change nothing', async () => {
    const s = tempService();
    cleanups.push(s.dispose);
    await expect(s.invoke('catalogue-chain-update', { chain_id: 'ETH', confirming_threshold: -1 }, { actor: 'ui' })).rejects.toMatchObject({
      code: 1002,
      message: expect.stringContaining('confirming_threshold'),
    });
    await expect(
      s.invoke('catalogue-chain-update', { chain_id: 'ETH', explorer_tx_url: 'https://etherscan.io/tx/' }, { actor: 'ui' }),
    ).rejects.toMatchObject({
      code: 1002,
      message: expect.stringContaining('explorer_tx_url: must be an https URL containing {hash}'),
    });
    await expect(
      s.invoke('catalogue-chain-update', { chain_id: 'ETH', explorer_tx_url: 'http://etherscan.io/tx/{hash}' }, { actor: 'ui' }),
    ).rejects.toMatchObject({ code: 1002 });
    await expect(
      s.invoke('catalogue-chain-update', { chain_id: 'ETH', confirming_threshold: 'abc' }, { actor: 'ui' }),
    ).rejects.toMatchObject({
      message: 'confirming_threshold: must be an integer >= 0',
    });
    await expect(s.invoke('catalogue-chain-update', { chain_id: 'ETH', name: ' ' }, { actor: 'ui' })).rejects.toMatchObject({
      message: 'name: must not be empty',
    });
    await expect(s.invoke('catalogue-token-update', { token_id: 'ETH_USDT', can_deposit: 'no' }, { actor: 'ui' })).rejects.toMatchObject({
      message: 'can_deposit: must be true or false',
    });
    await expect(s.invoke('catalogue-token-update', { token_id: 'ETH_USDT', dust_threshold: '-1' }, { actor: 'ui' })).rejects.toMatchObject(
      { code: 1002 },
    );
    const eth = await s.invoke('catalogue-chains-list', { chain_id: 'ETH' }, { actor: 'ui' });
    expect(eth.chains[0]).toMatchObject({ confirming_threshold: 12, explorer_tx_url: 'https://etherscan.io/tx/{hash}' });
  });

  it("a store made before the source names keeps its rows and the user's edits under the new names", () => {
    const dir = mkdtempSync(join(tmpdir(), 'nps-cat-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir);
    const old = openDb({ file: join(dataDir, 'nps.sqlite'), migrationsFolder: migrationsBefore(dir, '_catalogue_source_names') });
    old.$client
      .exec(`INSERT INTO chains (chain_id, chain_identifier, name, native_token_id, is_testnet, confirmations, explorer_url, explorer_tx_template, explorer_address_template, user_modified, created_at, updated_at)
      VALUES ('ETH', 'ETH', 'Ethereum', 'ETH', 0, 64, 'https://etherscan.io', 'https://etherscan.io/tx/{hash}', 'https://etherscan.io/address/{address}', 1, 0, 0)`);
    old.$client
      .exec(`INSERT INTO tokens (token_id, chain_id, symbol, name, contract_address, decimals, is_native, dust_threshold, user_modified, created_at, updated_at)
      VALUES ('ETH_USDT', 'ETH', 'USDT', 'Tether', '0xdAC17F958D2ee523a2206206994597C13D831ec7', 6, 0, '0.5', 1, 0, 0)`);
    old.$client.close();
    const svc = openService({ dataDir });
    cleanups.push(() => svc.close());
    expect(getChain(svc.ctx.db, 'ETH')).toMatchObject({
      confirming_threshold: 64,
      explorer_tx_url: 'https://etherscan.io/tx/{hash}',
      enabled: true,
    });
    expect(getToken(svc.ctx.db, 'ETH_USDT')).toMatchObject({ decimal: 6, dust_threshold: '0.5', can_deposit: true, can_withdraw: true });
    // The rest of the catalogue is seeded as on a new store.
    expect(getChain(svc.ctx.db, 'SETH')).toMatchObject({ enabled: false, confirming_threshold: 12 });
  });

  it('an edit of an unknown row names it', async () => {
    const s = tempService();
    cleanups.push(s.dispose);
    await expect(s.invoke('catalogue-chain-update', { chain_id: 'NOPE', confirming_threshold: 1 }, { actor: 'ui' })).rejects.toMatchObject({
      code: 3001,
    });
    await expect(s.invoke('catalogue-token-update', { token_id: 'NOPE', name: 'x' }, { actor: 'ui' })).rejects.toMatchObject({
      code: 3002,
    });
  });
});
