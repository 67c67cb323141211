import type { addressContract } from '../../../shared/address';
import { ErrorCodes } from '../../../shared/errors';
import type { HandlersOf, ServiceContext } from '../context';
import { ServiceError } from '../errors';
import { catalogueChain } from '../catalogue/handlers';
import { checkAddress, type AddressFamily } from './check';

/** The chain's family, from the service's catalogue (ctx.catalogue: a team store's on a shared store). */
async function familyOf(ctx: ServiceContext, chainId: string): Promise<AddressFamily> {
  const chain = await catalogueChain(ctx, chainId);
  if (chain.chain_identifier !== 'ETH' && chain.chain_identifier !== 'TRON') {
    throw new ServiceError(
      ErrorCodes.CHAIN_NOT_VERIFIABLE,
      `chain_id: ${chainId} (${chain.chain_identifier}) is not supported for address verification; only EVM and TRON chains are`,
    );
  }
  return chain.chain_identifier;
}

export function addressHandlers(ctx: ServiceContext): HandlersOf<typeof addressContract> {
  return {
    'address-verify': async ({ address, chain_id }) => ({
      is_valid: checkAddress(await familyOf(ctx, chain_id), address).is_valid,
      address,
    }),
    'address-check': async ({ address, chain_id }) => {
      const family = await familyOf(ctx, chain_id);
      return { address, chain_id, family, ...checkAddress(family, address) };
    },
  };
}
