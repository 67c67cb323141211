import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract } from '../../../shared/contract';
import { onchainContract } from '../../../shared/onchain';
import { npsRoutes } from '../http/routes';
import { startServer, type RunningServer } from '../http/server';
import { tempService } from '../test-support';
import { startAnvil, startProxy, type Anvil, type Proxy } from './anvil.test-support';
import { endpointOf, maskUrl, scrub } from './endpoint';
import type { SecretBox } from './nodes';

/*
 * A node's URL is a secret: kept in the data folder, readable by its user only, sealed where the
 * process has a keychain, shown masked, never on the /nps wire. The desktop app's box is Electron's
 * safeStorage (src/main/safe-storage.ts), which needs Electron; here a box of the same interface
 * seals with AES-GCM and a key of its own, as safeStorage does with the system's.
 */

/** A SecretBox as safeStorage is one: a key the store never sees. */
function aesBox(): SecretBox {
  const key = randomBytes(32);
  return {
    seal: (plain) => {
      const iv = randomBytes(12);
      const c = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
      return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64');
    },
    open: (sealed) => {
      const b = Buffer.from(sealed, 'base64');
      const d = createDecipheriv('aes-256-gcm', key, b.subarray(0, 12));
      d.setAuthTag(b.subarray(12, 28));
      return Buffer.concat([d.update(b.subarray(28)), d.final()]).toString('utf8');
    },
  };
}

const ui = { actor: 'ui' as const };
const KEY = 'k3y-0f-the-provider-abc123';

let anvil: Anvil;
let proxy: Proxy;
beforeAll(async () => {
  anvil = await startAnvil({ chainId: 1 });
  proxy = await startProxy(anvil.url);
});
afterAll(async () => {
  await proxy?.close();
  await anvil?.stop();
});

describe('a node URL kept as a secret', () => {
  it('is masked to scheme, host and port; its key scrubbed from what a failure says; its user part a header', () => {
    expect(maskUrl(`https://mainnet.infura.io/v3/${KEY}`)).toBe('https://mainnet.infura.io/…');
    expect(maskUrl(`https://eth.example:8443/?apikey=${KEY}`)).toBe('https://eth.example:8443/…');
    expect(maskUrl('http://127.0.0.1:8545')).toBe('http://127.0.0.1:8545');
    const e = endpointOf(`https://user:${KEY}@node.example/rpc/${KEY}?apikey=${KEY}`, 'ETH');
    expect(e.url).toBe(`https://node.example/rpc/${KEY}?apikey=${KEY}`);
    expect(e.headers.authorization).toBe(`Basic ${Buffer.from(`user:${KEY}`).toString('base64')}`);
    expect(scrub(`HTTP request failed. URL: ${e.url} Details: ${KEY}`, e)).toBe(
      'HTTP request failed. URL: https://node.example/… Details: …',
    );
    expect(endpointOf(`https://${KEY}@api.trongrid.io`, 'TRON').headers).toEqual({ 'TRON-PRO-API-KEY': KEY });
  });

  it('sealed by the box where there is one: the file holds no URL; without the box it cannot be read, and says so', async () => {
    const box = aesBox();
    const svc = tempService({ secretBox: box });
    try {
      const set = await svc.invoke('onchain-node-set', { chain_id: 'ETH', url: `${proxy.url}/v3/${KEY}` }, ui);
      expect(set).toMatchObject({ kept: 'safe_storage', url: `${proxy.url}/…`, readable: true });
      const file = join(svc.dataDir, 'nodes.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readFileSync(file, 'utf8')).not.toContain(KEY);
      expect(readFileSync(file, 'utf8')).not.toContain(proxy.url);
      svc.close();

      // The command line (no box) on the same folder: the node is there, and sealed.
      const cli = tempService({ dataDir: svc.dataDir });
      try {
        const eth = (await cli.invoke('onchain-nodes-list', {}, ui)).find((n) => n.chain_id === 'ETH')!;
        expect(eth).toMatchObject({ configured: true, kept: 'safe_storage', readable: false, url: '(sealed)' });
        const err = await cli
          .invoke('onchain-token-details', { chain_id: 'ETH', contract_addresses: [anvil.accounts[0]!] }, ui)
          .catch((x: Error) => x);
        expect((err as Error).message).toMatch(/^chain_id: ETH's node was set in the desktop app and is sealed with its keychain/);
      } finally {
        cli.close();
      }
      // The app again: it opens what it sealed.
      const app = tempService({ dataDir: svc.dataDir, secretBox: box });
      try {
        const { tokens } = await app.invoke('onchain-token-details', { chain_id: 'ETH', contract_addresses: [anvil.accounts[0]!] }, ui);
        expect(tokens[0]!.error).toBe('the contract answers neither symbol() nor decimals(): not an ERC-20 token');
      } finally {
        app.close();
      }
    } finally {
      svc.dispose();
    }
  }, 30_000);

  it('is on no /nps route, and the API answers nothing about nodes', async () => {
    const onchainNames = Object.keys(onchainContract);
    expect(onchainNames.every((n) => n in contract)).toBe(true);
    expect(npsRoutes.filter((r) => onchainNames.includes(r.handler))).toEqual([]);
    const svc = tempService();
    let server: RunningServer | undefined;
    try {
      await svc.invoke('onchain-node-set', { chain_id: 'ETH', url: `${proxy.url}/v3/${KEY}` }, ui);
      server = await startServer(svc, { host: '127.0.0.1', port: 0, log: () => undefined });
      const openapi = await (await fetch(`${server.url}/nps/openapi.json`)).text();
      expect(openapi).not.toMatch(/onchain|network_id/i);
      for (const path of ['/nps/chains?chain_id=ETH', '/nps/onchain/nodes', '/nps/nodes']) {
        const text = await (await fetch(`${server.url}${path}`)).text();
        expect(text).not.toContain(KEY);
        expect(text).not.toContain(String(proxy.url.split(':')[2]));
      }
    } finally {
      await server?.close();
      svc.dispose();
    }
  }, 30_000);
});
