import type { ApiKey, keysContract } from '../../../shared/keys';
import type { HandlersOf, ServiceContext } from '../context';
import { invalidParam } from '../errors';
import { getKey, insertKey, listKeys, revokeKey, updateKey } from './repository';
import { generateApiKeyPair } from './sign';

function requireKey(ctx: ServiceContext, apiKey: string): ApiKey {
  const key = getKey(ctx.db, apiKey);
  if (!key) throw invalidParam('api_key', 'no such key');
  return key;
}

export function keysHandlers(ctx: ServiceContext): HandlersOf<typeof keysContract> {
  return {
    'keys-create': ({ label, wallets }) => {
      const { api_key, api_secret } = generateApiKeyPair();
      const key = insertKey(ctx.db, { api_key, label, wallets, created_at: ctx.now() });
      return { api_key, api_secret, label: key.label, wallets: key.wallets, created_at: key.created_at };
    },
    'keys-add': ({ public_key, label, wallets }) => {
      const existing = getKey(ctx.db, public_key);
      if (existing) {
        throw invalidParam(
          'public_key',
          existing.revoked_at === null ? 'this key is already registered' : 'this key was revoked and cannot be registered again',
        );
      }
      return insertKey(ctx.db, { api_key: public_key, label, wallets, created_at: ctx.now() });
    },
    'keys-list': () => listKeys(ctx.db),
    'keys-update': ({ api_key, label, wallets }) => {
      requireKey(ctx, api_key);
      return updateKey(ctx.db, api_key, { label, wallets });
    },
    'keys-revoke': ({ api_key }) => {
      requireKey(ctx, api_key);
      return revokeKey(ctx.db, api_key, ctx.now());
    },
  };
}
