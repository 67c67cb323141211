import { call } from '../api';
import { useQuery } from '../lib/use-query';
import { useReference } from '../stores/reference';

/**
 * The Chain and Token filters of a list: every chain of the catalogue, and the tokens of the
 * chosen chain (all of them when none is chosen). Choosing a chain clears the token.
 */
export function ChainTokenFilter({
  chainId,
  tokenId,
  onChange,
}: {
  chainId: string;
  tokenId: string;
  onChange: (next: { chain_id?: string; token_id: string }) => void;
}) {
  const chains = useReference((s) => s.chains.data);
  const tokens = useQuery(chainId ? `tokens:${chainId}` : 'tokens:*', () =>
    call('catalogue-tokens-list', { page_size: 100, ...(chainId ? { chain_id: chainId } : {}) }),
  );
  return (
    <>
      <select aria-label="Chain" value={chainId} onChange={(e) => onChange({ chain_id: e.target.value, token_id: '' })}>
        <option value="">All chains</option>
        {(chains ?? []).map((c) => (
          <option key={c.chain_id} value={c.chain_id}>
            {c.chain_id}
          </option>
        ))}
      </select>
      <select aria-label="Token" value={tokenId} onChange={(e) => onChange({ token_id: e.target.value })}>
        <option value="">All tokens</option>
        {(tokens.data?.tokens ?? []).map((t) => (
          <option key={t.token_id} value={t.token_id}>
            {t.token_id}
          </option>
        ))}
      </select>
    </>
  );
}
