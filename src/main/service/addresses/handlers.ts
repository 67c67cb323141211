import type { addressContract } from '../../../shared/address';
import { ErrorCodes } from '../../../shared/errors';
import type { HandlersOf, ServiceContext } from '../context';
import { ServiceError } from '../errors';
import { requireChain } from '../catalogue/handlers';
import { checkAddress, type AddressFamily } from './check';

function familyOf(ctx: ServiceContext, chainId: string): AddressFamily {
  const chain = requireChain(ctx, chainId);
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
    'address-verify': ({ address, chain_id }) => ({ is_valid: checkAddress(familyOf(ctx, chain_id), address).is_valid, address }),
    'address-check': ({ address, chain_id }) => {
      const family = familyOf(ctx, chain_id);
      return { address, chain_id, family, ...checkAddress(family, address) };
    },
  };
}
