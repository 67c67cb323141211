import { useState } from 'react';
import type { Token } from '../../../../shared/catalogue';
import type { HandlerInput } from '../../../../shared/contract';
import type { IgnoredRows, UnknownToken } from '../../../../shared/ledger';
import type { TokenDetails } from '../../../../shared/onchain';
import { call, errorText } from '../../api';
import { ExplorerLink } from '../../components/links';
import { formatCount } from '../../lib/format';
import { suggestTokenIds } from '../../lib/token-ids';
import { useQuery } from '../../lib/use-query';
import type { TokenAddResult } from './wizard-store';

const plural = (n: number, word: string) => `${formatCount(n)} ${word}${n === 1 ? '' : 's'}`;

type TokenAdd = HandlerInput<'catalogue-token-add'>;

/** What the user gives for a token: the file's symbol to check, its decimal (never filled in for them), the ID if not the suggested one. */
interface Draft {
  symbol: string;
  decimal: string;
  tokenId: string;
}
interface Outcome {
  busy?: boolean;
  error?: string;
  added?: Token;
}

/** What the chain's node said of a contract (symbol(), name(), decimals()), by keyOf. */
type FromNode = Record<string, TokenDetails & { chain_id: string }>;

/**
 * Each unknown token's symbol, name and decimals read from its contract, where its chain has a node
 * (Catalogue → Chains); none where it has not, and the user types them as before.
 */
function useFromNode(tokens: UnknownToken[]): { data: FromNode | undefined; loading: boolean } {
  const key = tokens.length ? `from-node:${tokens.map(keyOf).sort().join(',')}` : null;
  const q = useQuery(key, async () => {
    const nodes = await call('onchain-nodes-list', {});
    const out: FromNode = {};
    for (const chain of new Set(tokens.map((t) => t.chain_id))) {
      if (!nodes.find((n) => n.chain_id === chain)?.configured) continue;
      const contracts = tokens.filter((t) => t.chain_id === chain).map((t) => t.contract_address);
      for (let i = 0; i < contracts.length; i += 100) {
        const { tokens: read } = await call('onchain-token-details', { chain_id: chain, contract_addresses: contracts.slice(i, i + 100) });
        for (const r of read) out[`${chain}-${r.contract_address}`] = { ...r, chain_id: chain };
      }
    }
    return out;
  });
  return { data: q.data, loading: q.loading };
}

const keyOf = (t: UnknownToken) => `${t.chain_id}-${t.contract_address}`;
const MAX_DECIMAL = 36;

/**
 * The decimal typed, checked against what the file shows: its amounts' most decimal places are a
 * lower bound only (a token of 18 whose amounts happen to be whole shows 0), so it is asked, and
 * anything below the bound refused.
 */
function readDecimal(text: string, least: number): { value?: number; problem?: string } {
  const t = text.trim();
  if (t === '') return {};
  if (!/^\d{1,2}$/.test(t) || Number(t) > MAX_DECIMAL) return { problem: `a whole number from ${least} to ${MAX_DECIMAL}` };
  if (Number(t) < least) return { problem: `at least ${least}: the file has an amount of it with ${least} decimal places` };
  return { value: Number(t) };
}

/** Why the decimal is asked, with the lower bound the file gives. */
function decimalHint(token: UnknownToken, firstRows: boolean): string {
  const where = firstRows ? "The file's first rows" : 'The file';
  return token.decimal_hint === 0
    ? `${where} show${firstRows ? '' : 's'} only whole amounts of it, which says nothing of its decimal: give the contract's decimals (the explorer's token page shows them).`
    : `${where} ${firstRows ? 'have' : 'has'} amounts of it with up to ${token.decimal_hint} decimal places, so at least ${token.decimal_hint}: give the contract's decimals (the explorer's token page shows them).`;
}

/** The catalogue's token IDs on these chains: a suggested ID must not be one of them. */
function useTakenIds(chainIds: string[], version: number): Set<string> | undefined {
  const key = chainIds.length ? `token-ids:${chainIds.join(',')}:${version}` : null;
  const ids = useQuery(key, async () => {
    const out: string[] = [];
    for (const chain_id of chainIds) {
      for (let page = 1; ; page++) {
        const r = await call('catalogue-tokens-list', { chain_id, page, page_size: 100 });
        out.push(...r.tokens.map((t) => t.token_id));
        if (r.tokens.length === 0 || page * 100 >= r.total) break;
      }
    }
    return out;
  });
  return ids.data && new Set(ids.data);
}

function UnknownTokenItem({
  token,
  firstRows,
  draft,
  outcome,
  suggestedId,
  fromNode,
  onEdit,
  onAdd,
  onIgnore,
}: {
  token: UnknownToken;
  firstRows: boolean;
  draft: Draft;
  outcome: Outcome;
  suggestedId: string;
  fromNode: (TokenDetails & { chain_id: string }) | undefined;
  onEdit: (patch: Partial<Draft>) => void;
  onAdd: () => void;
  onIgnore?: () => void;
}) {
  const key = keyOf(token);
  const decimal = readDecimal(draft.decimal, token.decimal_hint);
  const ready = draft.symbol.trim() !== '' && decimal.value !== undefined && (draft.tokenId.trim() || suggestedId) !== '';
  const busy = outcome.busy === true;
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
      {outcome.added ? (
        <p className="text-good" role="status">
          Added to the catalogue as <span className="mono">{outcome.added.token_id}</span> ({outcome.added.symbol}, decimal{' '}
          {outcome.added.decimal}).
        </p>
      ) : (
        <>
          <div className="unknown-token-form">
            <label className="inline-field">
              <span>Symbol</span>
              <input
                className="mono input-symbol"
                value={draft.symbol}
                onChange={(e) => onEdit({ symbol: e.target.value })}
                disabled={busy}
                spellCheck={false}
              />
            </label>
            <label className="inline-field">
              <span>Decimal</span>
              <input
                id={`${key}-decimal`}
                className={decimal.problem ? 'mono input-decimal input-bad' : 'mono input-decimal'}
                inputMode="numeric"
                value={draft.decimal}
                placeholder={`≥ ${token.decimal_hint}`}
                onChange={(e) => onEdit({ decimal: e.target.value })}
                disabled={busy}
                required
                aria-invalid={decimal.problem !== undefined}
                aria-describedby={`${key}-decimal-hint`}
              />
            </label>
            <label className="inline-field">
              <span>Token ID</span>
              <input
                className="mono input-token-id"
                value={draft.tokenId}
                placeholder={suggestedId || 'CHAIN_SYMBOL'}
                onChange={(e) => onEdit({ tokenId: e.target.value })}
                disabled={busy}
                spellCheck={false}
              />
            </label>
            <button type="button" className="btn btn-primary btn-small" disabled={busy || !ready} onClick={onAdd}>
              {busy ? 'Adding…' : 'Add to catalogue'}
            </button>
            {onIgnore && (
              <button
                type="button"
                className="btn btn-small"
                disabled={busy}
                onClick={onIgnore}
                title="A token you do not hold for real (spam sent to the wallet): its rows are skipped and counted, not imported"
              >
                Ignore (spam)
              </button>
            )}
          </div>
          {fromNode && (
            <p className={fromNode.error ? 'field-hint text-warn' : 'field-hint'} data-testid="from-node">
              {fromNode.error
                ? `${token.chain_id}'s node could not read the contract: ${fromNode.error}; give them as the explorer shows them.`
                : `Read from ${token.chain_id}'s node: symbol ${fromNode.symbol}, decimals ${fromNode.decimal}${fromNode.name ? `, name ${fromNode.name}` : ''}${
                    token.symbol && token.symbol !== fromNode.symbol ? ` (the file says ${token.symbol})` : ''
                  }. Check them, then add.`}
            </p>
          )}
          {decimal.problem && (
            <p className="text-bad small" data-testid="decimal-problem">
              Decimal: {decimal.problem}.
            </p>
          )}
          {!(fromNode && fromNode.decimal !== null) && (
            <p id={`${key}-decimal-hint`} className="field-hint">
              {decimalHint(token, firstRows)}
            </p>
          )}
        </>
      )}
      {outcome.error && (
        <p className="error-text" role="alert">
          {outcome.error}
        </p>
      )}
    </li>
  );
}

/**
 * Tokens the rows name by contract that the catalogue lacks: listed together, each with its symbol
 * and contract from the file and a decimal the user gives (the file shows only a lower bound);
 * added one at a time, or every one that has its decimal at once. Suggested IDs never collide: a
 * symbol two contracts share, or one the catalogue has, gets the contract's last digits.
 */
export function UnknownTokens({
  tokens,
  firstRows,
  onAdd,
  onIgnore,
}: {
  tokens: UnknownToken[];
  /** The tokens were found among the file's first rows only (the file has not been read whole yet). */
  firstRows: boolean;
  onAdd: (tokens: TokenAdd[]) => Promise<TokenAddResult[]>;
  /** Ignore a token as spam (absent: not offered). */
  onIgnore?: (token: { chain_id: string; contract_address: string; symbol: string; name: string }) => Promise<void>;
}) {
  const fromNode = useFromNode(tokens);
  const [drafts, setDrafts] = useState<Record<string, Draft>>({});
  const [outcomes, setOutcomes] = useState<Record<string, Outcome>>({});
  const [addedCount, setAddedCount] = useState(0);
  const chainIds = [...new Set(tokens.map((t) => t.chain_id))].sort();
  const taken = useTakenIds(chainIds, addedCount);
  if (tokens.length === 0) return null;

  // What the node read is proposed for the user to confirm; without a node, the file's symbol and no decimal.
  const draftOf = (t: UnknownToken): Draft => {
    const read = fromNode.data?.[keyOf(t)];
    return (
      drafts[keyOf(t)] ??
      (read && !read.error && read.decimal !== null
        ? { symbol: read.symbol || t.symbol, decimal: String(read.decimal), tokenId: '' }
        : { symbol: t.symbol, decimal: '', tokenId: '' })
    );
  };
  const ignore = async (t: UnknownToken) => {
    setOutcomes((o) => ({ ...o, [keyOf(t)]: { busy: true } }));
    try {
      await onIgnore!({ chain_id: t.chain_id, contract_address: t.contract_address, symbol: t.symbol, name: t.name });
    } catch (err) {
      setOutcomes((o) => ({ ...o, [keyOf(t)]: { error: errorText(err) } }));
    }
  };
  // Until the catalogue's IDs are in, nothing is suggested (and nothing can be added with a suggestion).
  const suggested = taken
    ? suggestTokenIds(
        tokens.map((t) => ({ ...t, symbol: draftOf(t).symbol })),
        taken,
      )
    : tokens.map(() => '');
  const open = tokens.filter((t) => !outcomes[keyOf(t)]?.added);
  const request = (t: UnknownToken): TokenAdd | undefined => {
    const d = draftOf(t);
    const decimal = readDecimal(d.decimal, t.decimal_hint).value;
    const tokenId = d.tokenId.trim() || suggested[tokens.indexOf(t)]!;
    if (d.symbol.trim() === '' || decimal === undefined || tokenId === '') return undefined;
    return {
      chain_id: t.chain_id,
      contract_address: t.contract_address,
      symbol: d.symbol.trim(),
      decimal,
      token_id: tokenId,
      ...(t.name.trim() ? { name: t.name.trim() } : {}),
    };
  };
  const ready = open.filter((t) => request(t) !== undefined && !outcomes[keyOf(t)]?.busy);
  const busy = tokens.some((t) => outcomes[keyOf(t)]?.busy);

  // A refusal is about the values it was given: editing any of them takes it away.
  const edit = (t: UnknownToken) => (patch: Partial<Draft>) => {
    setDrafts((d) => ({ ...d, [keyOf(t)]: { ...draftOf(t), ...d[keyOf(t)], ...patch } }));
    setOutcomes((o) => ({ ...o, [keyOf(t)]: { ...o[keyOf(t)], error: undefined } }));
  };
  const add = async (list: UnknownToken[]) => {
    const requests = list.map((t) => [t, request(t)] as const).filter((x): x is readonly [UnknownToken, TokenAdd] => x[1] !== undefined);
    if (requests.length === 0) return;
    setOutcomes((o) => ({ ...o, ...Object.fromEntries(requests.map(([t]) => [keyOf(t), { busy: true }])) }));
    let results: TokenAddResult[];
    try {
      results = await onAdd(requests.map(([, r]) => r));
    } catch (err) {
      results = requests.map(() => ({ error: errorText(err) }));
    }
    setOutcomes((o) => ({
      ...o,
      ...Object.fromEntries(requests.map(([t], i) => [keyOf(t), { added: results[i]?.token, error: results[i]?.error }])),
    }));
    setAddedCount((n) => n + results.filter((r) => r.token).length);
  };

  const rows = tokens.reduce((n, t) => n + t.rows, 0);
  const missing = open.length - ready.length;
  return (
    <section className="subsection unknown-tokens" aria-label="Unknown tokens">
      <h3 data-testid="unknown-tokens-title">
        {plural(rows, 'row')} of {plural(tokens.length, 'unknown token')}
        {firstRows && <span className="muted"> in the first rows</span>}
      </h3>
      <p className="muted">
        The catalogue has no token with {tokens.length === 1 ? 'this contract' : 'these contracts'}, so{' '}
        {rows === 1 ? 'its row is' : 'their rows are'} rejected.{' '}
        {fromNode.data && Object.values(fromNode.data).some((r) => !r.error)
          ? "Their symbols and decimals are read from the chain's node: check each, then add it."
          : fromNode.loading
            ? "Reading their symbols and decimals from the chain's node…"
            : "Check each symbol (from the file) and give each token its decimal, then add it: the file's amounts show only how many decimal places the token has at least (with a node set for the chain, in the Catalogue, they are read from the contract)."}{' '}
        A token that is spam can be ignored: its rows are then skipped and counted.
      </p>
      {open.length > 1 && (
        <div className="unknown-tokens-all">
          <button type="button" className="btn btn-primary btn-small" disabled={busy || ready.length === 0} onClick={() => void add(ready)}>
            {ready.length === open.length || ready.length === 0
              ? `Add all ${formatCount(open.length)} tokens`
              : `Add ${plural(ready.length, 'token')} with a decimal`}
          </button>
          <span className="muted small" data-testid="unknown-tokens-ready">
            {missing === 0
              ? 'Each with the symbol, decimal and ID shown.'
              : `${plural(missing, 'token')} still ${missing === 1 ? 'needs' : 'need'} a decimal (or a symbol).`}
          </span>
        </div>
      )}
      <ul className="unknown-token-list">
        {tokens.map((t, i) => (
          <UnknownTokenItem
            key={keyOf(t)}
            token={t}
            firstRows={firstRows}
            draft={draftOf(t)}
            outcome={outcomes[keyOf(t)] ?? {}}
            suggestedId={suggested[i]!}
            fromNode={fromNode.data?.[keyOf(t)]}
            onEdit={edit(t)}
            onAdd={() => void add([t])}
            onIgnore={onIgnore && (() => void ignore(t))}
          />
        ))}
      </ul>
    </section>
  );
}

/** Rows of contracts the user ignores (spam): skipped, neither imported nor rejected; counted by token. */
export function IgnoredTokens({ tokens, firstRows }: { tokens: IgnoredRows[]; firstRows: boolean }) {
  if (tokens.length === 0) return null;
  const rows = tokens.reduce((n, t) => n + t.rows, 0);
  return (
    <section className="subsection ignored-tokens" aria-label="Ignored tokens">
      <h3 data-testid="ignored-tokens-title">
        {plural(rows, 'row')} of {plural(tokens.length, 'ignored token')} skipped
        {firstRows && <span className="muted"> in the first rows</span>}
      </h3>
      <ul className="plain-list">
        {tokens.map((t) => (
          <li key={`${t.chain_id}-${t.contract_address}`}>
            <strong>{t.symbol || 'no symbol'}</strong> <span className="muted">on {t.chain_id}</span>{' '}
            <ExplorerLink chainId={t.chain_id} kind="address" value={t.contract_address} /> · {plural(t.rows, 'row')}
          </li>
        ))}
      </ul>
      <p className="muted small">Ignored as spam (nps tokens unignore lets a contract in again: its rows are then an unknown token).</p>
    </section>
  );
}
