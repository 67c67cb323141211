import { z } from 'zod';
import { requiredString } from './primitives';

export const AddressVerifyRequest = z.object({
  address: requiredString().meta({ description: 'The address exactly as given; surrounding white space makes it invalid' }),
  chain_id: requiredString().meta({ description: 'A chain whose identifier is ETH (any EVM chain) or TRON' }),
});
export type AddressVerifyRequest = z.output<typeof AddressVerifyRequest>;

/** The /nps answer: exactly these two fields. */
export const AddressVerifyResult = z.strictObject({
  is_valid: z.boolean(),
  address: z.string(),
});
export type AddressVerifyResult = z.infer<typeof AddressVerifyResult>;

/** The desktop UI's richer answer: why it is invalid, and the checksummed form for EVM. */
export const AddressCheckDetail = z.object({
  ...AddressVerifyResult.shape,
  chain_id: z.string(),
  family: z.enum(['ETH', 'TRON']),
  reason: z.string().meta({ description: 'Why the address is invalid, or what kind of valid address it is' }),
  checksummed: z.string().nullable(),
});
export type AddressCheckDetail = z.infer<typeof AddressCheckDetail>;

export const addressContract = {
  'address-verify': { readOnly: true, input: AddressVerifyRequest, output: AddressVerifyResult },
  'address-check': { readOnly: true, input: AddressVerifyRequest, output: AddressCheckDetail },
};
