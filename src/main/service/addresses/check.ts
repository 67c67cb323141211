import { checksumAddress, isTronAddress } from './libraries';

export type AddressFamily = 'ETH' | 'TRON';

export interface AddressVerdict {
  is_valid: boolean;
  reason: string;
  /** EIP-55 form of a valid EVM address; null otherwise. */
  checksummed: string | null;
}

const EVM_SHAPE = /^0x[0-9a-fA-F]{40}$/;

/**
 * EIP-55: all-lower and all-upper hex are valid (no checksum claimed); mixed case must match
 * the checksum exactly. viem's strict isAddress rejects all-upper, so the case rule is ours and
 * viem only computes the checksum.
 */
export function checkEvmAddress(address: string): AddressVerdict {
  if (address.trim() !== address) return invalid('has white space around it');
  if (!address.startsWith('0x')) return invalid(address.startsWith('0X') ? 'must start with lower-case 0x' : 'must start with 0x');
  if (address.length !== 42) return invalid(`must be 0x and 40 hex digits; it has ${address.length - 2} characters after 0x`);
  if (!EVM_SHAPE.test(address)) return invalid('contains a character that is not a hex digit');
  const hex = address.slice(2);
  const checksummed = checksumAddress(`0x${hex.toLowerCase()}`);
  if (hex === hex.toLowerCase() || hex === hex.toUpperCase()) {
    return { is_valid: true, reason: 'valid (no checksum: single-case hex)', checksummed };
  }
  if (checksummed === address) return { is_valid: true, reason: 'valid, EIP-55 checksum matches', checksummed };
  return invalid('mixed case does not match the EIP-55 checksum (a letter has the wrong case, or a digit is wrong)');
}

/** TRON: Base58Check T... decoding to 21 bytes with prefix 0x41, or the 42-hex form 41... */
export function checkTronAddress(address: string): AddressVerdict {
  if (address.trim() !== address) return invalid('has white space around it');
  if (/^[0-9a-fA-F]+$/.test(address)) {
    if (address.length !== 42) return invalid(`hex form must be 42 hex digits; it has ${address.length}`);
    if (!address.startsWith('41')) return invalid('hex form must start with 41');
    return isTronAddress(address) ? { is_valid: true, reason: 'valid (hex form)', checksummed: null } : invalid('not a TRON address');
  }
  if (address.startsWith('0x')) return invalid('looks like an EVM address; TRON addresses start with T (or 41 in hex)');
  if (!address.startsWith('T')) return invalid('must start with T (Base58Check) or 41 (hex)');
  if (!/^[1-9A-HJ-NP-Za-km-z]+$/.test(address)) return invalid('contains a character outside the Base58 alphabet');
  if (address.length !== 34) return invalid(`must be 34 characters; it has ${address.length}`);
  return isTronAddress(address)
    ? { is_valid: true, reason: 'valid (Base58Check)', checksummed: null }
    : invalid('Base58Check checksum does not match (a character is wrong)');
}

export function checkAddress(family: AddressFamily, address: string): AddressVerdict {
  return family === 'ETH' ? checkEvmAddress(address) : checkTronAddress(address);
}

function invalid(reason: string): AddressVerdict {
  return { is_valid: false, reason, checksummed: null };
}
