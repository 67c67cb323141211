import type { ApiKey, keysContract } from '../../../shared/keys';
import type { HandlersOf, ServiceContext } from '../context';
import { invalidParam } from '../errors';
import { generateApiKeyPair } from './sign';

async function requireKey(ctx: ServiceContext, apiKey: string): Promise<ApiKey> {
  const key = await ctx.keys.get(apiKey);
  if (!key) throw invalidParam('api_key', 'no such key');
  return key;
}

export function keysHandlers(ctx: ServiceContext): HandlersOf<typeof keysContract> {
  return {
    'keys-create': async ({ label, wallets }) => {
      const { api_key, api_secret } = generateApiKeyPair();
      const key = await ctx.keys.insert({ api_key, label, wallets, created_at: ctx.now() });
      return { api_key, api_secret, label: key.label, wallets: key.wallets, created_at: key.created_at };
    },
    'keys-add': async ({ public_key, label, wallets }) => {
      const existing = await ctx.keys.get(public_key);
      if (existing) {
        throw invalidParam(
          'public_key',
          existing.revoked_at === null ? 'this key is already registered' : 'this key was revoked and cannot be registered again',
        );
      }
      return ctx.keys.insert({ api_key: public_key, label, wallets, created_at: ctx.now() });
    },
    'keys-list': () => ctx.keys.list(),
    'keys-update': async ({ api_key, label, wallets }) => {
      await requireKey(ctx, api_key);
      return ctx.keys.update(api_key, { label, wallets });
    },
    'keys-revoke': async ({ api_key }) => {
      await requireKey(ctx, api_key);
      return ctx.keys.revoke(api_key, ctx.now());
    },
  };
}
