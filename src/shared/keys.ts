import { z } from 'zod';
import { Uuid } from './primitives';

/** An Ed25519 public key: 32 bytes as 64 hex digits (any case in; lower case out). */
const PublicKeyHex = z
  .string({ error: 'must be a string' })
  .regex(/^[0-9a-fA-F]{64}$/, { error: 'must be a 32-byte Ed25519 public key as 64 hex digits' })
  .transform((s) => s.toLowerCase());

const KeyLabel = z
  .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
  .trim()
  .min(1, { error: 'must not be empty' })
  .max(100, { error: 'must be at most 100 characters' });

/** The wallets a key may act on; null means every wallet, present and future. */
const KeyWallets = z
  .array(
    Uuid.transform((s) => s.toLowerCase()),
    { error: 'must be a list of wallet IDs or null (all wallets)' },
  )
  .min(1, { error: 'must name at least one wallet, or be null for all wallets' })
  .transform((list) => [...new Set(list)].sort())
  .nullable();

/** A registered key as the desktop UI and the CLI see it. Times are Unix milliseconds. */
export const ApiKey = z.object({
  api_key: z.string().meta({ description: 'Ed25519 public key, 64 lower-case hex digits' }),
  label: z.string(),
  wallets: z.array(z.string()).nullable().meta({ description: 'Wallets the key may act on; null = all wallets' }),
  created_at: z.number().int(),
  revoked_at: z.number().int().nullable(),
  last_used_at: z.number().int().nullable(),
});
export type ApiKey = z.infer<typeof ApiKey>;

const KeyCreateInput = z.object({
  label: KeyLabel,
  wallets: KeyWallets.default(null),
});
type KeyCreateInput = z.output<typeof KeyCreateInput>;

/** Answer to key creation: the only moment the secret exists outside the caller's hands. */
export const KeyCreated = z.object({
  api_key: z.string(),
  api_secret: z.string().meta({ description: 'The 32-byte Ed25519 seed, 64 hex digits. Shown once, never stored.' }),
  label: z.string(),
  wallets: z.array(z.string()).nullable(),
  created_at: z.number().int(),
});
export type KeyCreated = z.infer<typeof KeyCreated>;

const KeyAddInput = z.object({
  public_key: PublicKeyHex,
  label: KeyLabel,
  wallets: KeyWallets.default(null),
});
type KeyAddInput = z.output<typeof KeyAddInput>;

const KeyRef = z.object({ api_key: PublicKeyHex });

const KeyUpdateInput = z.object({
  api_key: PublicKeyHex,
  label: KeyLabel.optional(),
  wallets: KeyWallets.optional(),
});
type KeyUpdateInput = z.output<typeof KeyUpdateInput>;

export const keysContract = {
  'keys-create': { input: KeyCreateInput, output: KeyCreated },
  'keys-add': { input: KeyAddInput, output: ApiKey },
  'keys-list': { readOnly: true, input: z.object({}), output: z.array(ApiKey) },
  'keys-update': { input: KeyUpdateInput, output: ApiKey },
  'keys-revoke': { input: KeyRef, output: ApiKey },
};
