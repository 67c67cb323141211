/*
 * The token ID the import dialog suggests for a token a file names by contract. The catalogue's own
 * default is CHAIN_SYMBOL (catalogue-token-add without a token_id), which collides as soon as two
 * contracts share a symbol (every Uniswap V2 pair is "UNI-V2") or the catalogue has the symbol
 * already: then the contract's last hex digits tell them apart (ETH_UNI_V2_A225).
 */

/** The catalogue's rule for a token ID: 2 to 32 capitals, digits or _, starting with a letter. */
const TOKEN_ID = /^[A-Z][A-Z0-9_]{1,31}$/;
const MAX_LENGTH = 32;

/** CHAIN_SYMBOL, as the catalogue makes it when no token_id is given; '' for a token without a symbol. */
export const defaultTokenId = (chainId: string, symbol: string): string =>
  symbol.trim() === ''
    ? ''
    : `${chainId}_${symbol
        .trim()
        .toUpperCase()
        .replace(/[^A-Z0-9]/g, '_')}`;

/** The contract's last `n` characters (after 0x), upper case: A225 for 0x…a225. */
const tail = (contract: string, n: number) =>
  contract
    .replace(/^0x/i, '')
    .replace(/[^0-9a-zA-Z]/g, '')
    .slice(-n)
    .toUpperCase();

/** base_TAIL, the base cut so that the whole stays within the catalogue's 32 characters. */
const withTail = (base: string, end: string) => `${base.slice(0, MAX_LENGTH - end.length - 1)}_${end}`;

/**
 * A token ID for each token, in order: CHAIN_SYMBOL where that is free and no other token of the
 * list has it, else CHAIN_SYMBOL_ and the contract's last 4 characters (more where those are
 * taken too). '' where the token has no symbol (the user names it). `taken`: the catalogue's IDs.
 */
export function suggestTokenIds(
  tokens: readonly { chain_id: string; contract_address: string; symbol: string }[],
  taken: ReadonlySet<string>,
): string[] {
  const bases = tokens.map((t) => defaultTokenId(t.chain_id, t.symbol));
  const repeats = new Map<string, number>();
  for (const b of bases) repeats.set(b, (repeats.get(b) ?? 0) + 1);
  const used = new Set(taken);
  return tokens.map((t, i) => {
    const base = bases[i]!;
    if (base === '' || !TOKEN_ID.test(base.slice(0, MAX_LENGTH))) return '';
    let id = base.length <= MAX_LENGTH && repeats.get(base) === 1 && !used.has(base) ? base : '';
    for (const n of [4, 6, 8, 12, 40]) {
      if (id !== '') break;
      const candidate = withTail(base, tail(t.contract_address, n));
      if (!used.has(candidate)) id = candidate;
    }
    used.add(id);
    return id;
  });
}
