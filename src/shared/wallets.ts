import { z } from 'zod';
import { Uuid } from './primitives';

/*
 * Named wallets: a wallet is a UUID (what the ledger's rows and the /nps door carry) with the name
 * and notes the user gives it, and its own addresses per chain. Screens show the name, the ID on
 * hover or in detail.
 */

/** A wallet's name: unique ignoring case; '' only for a wallet an import created and nobody named yet. */
const WalletName = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, { error: 'must not be empty' })
  .max(100, { error: 'must be at most 100 characters' })
  .refine((s) => ![...s].some((c) => c < ' ' || c === '\u007f'), { error: 'must not contain control characters (line breaks, tabs)' });
const Notes = z.string({ error: 'must be a string' }).max(2000, { error: 'must be at most 2000 characters' });
const AddressText = z.string({ error: 'must be a string' }).trim().min(1, { error: 'must not be empty' });
const Label = z.string({ error: 'must be a string' }).trim().max(100, { error: 'must be at most 100 characters' });

export const WalletAddress = z.object({
  chain_id: z.string(),
  /** As stored: EVM addresses lower-case, others as given. */
  address: z.string(),
  label: z.string(),
});
export type WalletAddress = z.infer<typeof WalletAddress>;

export const WalletSummary = z.object({
  wallet_id: z.string(),
  /** '' for a wallet an import created that nobody named yet. */
  name: z.string(),
  notes: z.string(),
  addresses: z.array(WalletAddress),
  /** Records of the wallet in the ledger. */
  transactions: z.number().int(),
});
export type WalletSummary = z.infer<typeof WalletSummary>;

const NewAddress = z
  .object({ chain_id: z.string().min(1, { error: 'must not be empty' }), address: AddressText, label: Label.optional() })
  .strict();

const WalletCreate = z.object({ name: WalletName, notes: Notes.optional(), addresses: z.array(NewAddress).max(100).optional() }).strict();

const WalletUpdate = z.object({ wallet_id: Uuid, name: WalletName.optional(), notes: Notes.optional() }).strict();

const WalletAddressChange = NewAddress.extend({ wallet_id: Uuid }).strict();

export const walletsContract = {
  'wallets-list': { readOnly: true, input: z.object({}).strict(), output: z.array(WalletSummary) },
  'wallet-create': { input: WalletCreate, output: WalletSummary },
  'wallet-update': { input: WalletUpdate, output: WalletSummary },
  'wallet-address-add': { input: WalletAddressChange, output: WalletSummary },
  'wallet-address-remove': { input: WalletAddressChange.omit({ label: true }), output: WalletSummary },
};
