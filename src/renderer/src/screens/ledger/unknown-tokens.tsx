import { useState } from 'react';
import type { Token } from '../../../../shared/catalogue';
import type { HandlerInput } from '../../../../shared/contract';
import type { UnknownToken } from '../../../../shared/ledger';
import { ExplorerLink } from '../../components/links';
import { errorText } from '../../api';
import { formatCount } from '../../lib/format';

const plural = (n: number, word: string) => `${formatCount(n)} ${word}${n === 1 ? '' : 's'}`;

/** The id the catalogue gives a token when none is given: CHAIN_SYMBOL. */
const defaultTokenId = (chainId: string, symbol: string) => `${chainId}_${symbol.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

function UnknownTokenItem({ token, onAdd }: { token: UnknownToken; onAdd: (t: HandlerInput<'catalogue-token-add'>) => Promise<Token> }) {
  const key = `${token.chain_id}-${token.contract_address}`;
  const [symbol, setSymbol] = useState(token.symbol);
  const [decimalText, setDecimalText] = useState(String(token.decimal_hint));
  const [tokenId, setTokenId] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [added, setAdded] = useState<Token>();
  // A refusal is about the values it was given: editing any of them takes it away.
  const edit = (setter: (v: string) => void) => (e: { target: { value: string } }) => {
    setter(e.target.value);
    setError(undefined);
  };
  const decimal = /^\d{1,2}$/.test(decimalText.trim()) ? Number(decimalText.trim()) : NaN;
  const valid = symbol.trim() !== '' && Number.isInteger(decimal) && decimal <= 36;
  const add = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const saved = await onAdd({
        chain_id: token.chain_id,
        contract_address: token.contract_address,
        symbol: symbol.trim(),
        decimal,
        ...(tokenId.trim() ? { token_id: tokenId.trim() } : {}),
        ...(token.name.trim() ? { name: token.name.trim() } : {}),
      });
      setAdded(saved);
    } catch (err) {
      setError(errorText(err));
    }
    setBusy(false);
  };
  return (
    <li className="unknown-token" aria-label={`Unknown token ${token.symbol || token.contract_address}`}>
      <div className="unknown-token-head">
        <strong>{token.symbol || 'no symbol in the file'}</strong>
        {token.name && token.name !== token.symbol && <span>{token.name}</span>}
        <span className="muted">
          on {token.chain_id} · {plural(token.rows, 'row')}
        </span>
      </div>
      <div className="unknown-token-contract">
        <span className="muted small">Contract</span>{' '}
        <ExplorerLink chainId={token.chain_id} kind="address" value={token.contract_address} short={false} />
      </div>
      {added ? (
        <p className="text-good" role="status">
          Added to the catalogue as <span className="mono">{added.token_id}</span> ({added.symbol}, decimal {added.decimal}).
        </p>
      ) : (
        <div className="unknown-token-form">
          <label className="inline-field">
            <span>Symbol</span>
            <input className="mono input-symbol" value={symbol} onChange={edit(setSymbol)} disabled={busy} spellCheck={false} />
          </label>
          <label className="inline-field">
            <span>Decimal</span>
            <input
              id={`${key}-decimal`}
              className="mono input-decimal"
              inputMode="numeric"
              value={decimalText}
              onChange={edit(setDecimalText)}
              disabled={busy}
              aria-describedby={`${key}-decimal-hint`}
            />
          </label>
          <label className="inline-field">
            <span>Token ID</span>
            <input
              className="mono input-token-id"
              value={tokenId}
              placeholder={symbol.trim() ? defaultTokenId(token.chain_id, symbol.trim()) : 'CHAIN_SYMBOL'}
              onChange={edit(setTokenId)}
              disabled={busy}
              spellCheck={false}
            />
          </label>
          <button type="button" className="btn btn-primary btn-small" disabled={busy || !valid} onClick={() => void add()}>
            {busy ? 'Adding…' : 'Add to catalogue'}
          </button>
        </div>
      )}
      {!added && (
        <p id={`${key}-decimal-hint`} className="field-hint">
          {formatCount(token.decimal_hint)} is the most decimal places the file shows for it: the token has at least that many, and may have
          more. Check the contract&apos;s decimal before adding it.
        </p>
      )}
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

/**
 * Tokens the rows name by contract that the catalogue lacks: listed together, each added only when
 * the user has checked its symbol and decimal and pressed its button.
 */
export function UnknownTokens({
  tokens,
  firstRows,
  onAdd,
}: {
  tokens: UnknownToken[];
  /** The tokens were found among the file's first rows only (the file has not been read whole yet). */
  firstRows: boolean;
  onAdd: (t: HandlerInput<'catalogue-token-add'>) => Promise<Token>;
}) {
  if (tokens.length === 0) return null;
  const rows = tokens.reduce((n, t) => n + t.rows, 0);
  return (
    <section className="subsection unknown-tokens" aria-label="Unknown tokens">
      <h3 data-testid="unknown-tokens-title">
        {plural(rows, 'row')} of {plural(tokens.length, 'unknown token')}
        {firstRows && <span className="muted"> in the first rows</span>}
      </h3>
      <p className="muted">
        The catalogue has no token with {tokens.length === 1 ? 'this contract' : 'these contracts'}, so{' '}
        {rows === 1 ? 'its row is' : 'their rows are'} rejected. Check each one, then add it: its symbol and contract come from the file.
      </p>
      <ul className="unknown-token-list">
        {tokens.map((t) => (
          <UnknownTokenItem key={`${t.chain_id}-${t.contract_address}`} token={t} onAdd={onAdd} />
        ))}
      </ul>
    </section>
  );
}
