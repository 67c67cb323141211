import { useState, type ReactNode } from 'react';
import type { Chain, ChainUpdate, Token, TokenUpdate } from '../../../shared/catalogue';
import type { NodeInfo } from '../../../shared/onchain';
import { call, errorText, updateChain, updateToken } from '../api';
import { DataTable, type SimpleColumn } from '../components/data-table';
import { ExplorerLink } from '../components/links';
import {
  Amount,
  Badge,
  ConfirmDialog,
  Empty,
  ErrorBox,
  Field,
  FieldName,
  FormDialog,
  Loading,
  NoValue,
  PageHeader,
  Pager,
  Switch,
  Tabs,
} from '../components/ui';
import { useQuery, type QueryState } from '../lib/use-query';
import { useChangeKey } from '../stores/changes';
import { useReference } from '../stores/reference';
import { useRoute } from '../stores/route';

const PAGE_SIZES = [10, 20, 50, 100];

/** An explorer template as a person reads it: without the scheme, the placeholder set apart. */
function Template({ field, value }: { field: string; value: string }) {
  const text = value.replace(/^https:\/\//, '');
  const at = text.search(/\{(hash|address)\}/);
  return (
    <span className="mono small template" title={`${field}: ${value}`}>
      {at < 0 ? (
        text
      ) : (
        <>
          {text.slice(0, at)}
          <span className="placeholder">{text.slice(at, text.indexOf('}', at) + 1)}</span>
          {text.slice(text.indexOf('}', at) + 1)}
        </>
      )}
    </span>
  );
}

/** The row's Edit button, named after the row so a screen reader (and a test) can tell them apart. */
function EditButton({ id, onClick }: { id: string; onClick: () => void }) {
  return (
    <button type="button" className="btn btn-small" onClick={onClick} aria-label={`Edit ${id}`}>
      Edit
    </button>
  );
}

function PageSize({ value, onChange, id }: { value: number; onChange: (n: number) => void; id: string }) {
  return (
    <Field label="Page size" htmlFor={id}>
      <select id={id} value={value} onChange={(e) => onChange(Number(e.target.value))}>
        {PAGE_SIZES.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </Field>
  );
}

function ChainIdSelect({ id, value, onChange }: { id: string; value: string; onChange: (chainId: string) => void }) {
  const chains = useReference((s) => s.chains.data);
  return (
    <Field label="Chain ID" htmlFor={id} hint="Exact match">
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Any chain</option>
        {(chains ?? []).map((c) => (
          <option key={c.chain_id} value={c.chain_id}>
            {c.chain_id}
          </option>
        ))}
      </select>
    </Field>
  );
}

/**
 * Rows saved on this screen, shown at once while the page reloads. They belong to one answer: the
 * next answer from the service replaces them, whatever else changed the catalogue meanwhile.
 */
function useSavedRows<T>(data: object | undefined, keyOf: (row: T) => string) {
  const [saved, setSaved] = useState<{ data: object | undefined; rows: Record<string, T> }>({ data: undefined, rows: {} });
  const rows = saved.data === data ? saved.rows : {};
  return {
    show: (list: T[]) => list.map((r) => rows[keyOf(r)] ?? r),
    keep: (row: T) => setSaved({ data, rows: { ...rows, [keyOf(row)]: row } }),
  };
}

/** Quick switches save one boolean in place; their failure is said above the table. */
function useQuickSave<T>(save: (row: T, patch: Partial<T>) => Promise<T>, onSaved: (row: T) => void) {
  const [busy, setBusy] = useState<string>();
  const [error, setError] = useState<string>();
  const run = async (key: string, row: T, patch: Partial<T>) => {
    setBusy(key);
    setError(undefined);
    try {
      onSaved(await save(row, patch));
    } catch (err) {
      setError(`${key}: ${errorText(err)}`);
    } finally {
      setBusy(undefined);
    }
  };
  return { busy, error, run };
}

/** Whole numbers go as numbers; anything else goes as typed, and the service says what is wrong with it. */
const asNumber = (text: string): number | string => (/^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text);

function EditChainDialog({ chain, onClose, onSaved }: { chain: Chain; onClose: () => void; onSaved: (c: Chain) => void }) {
  const [name, setName] = useState(chain.name);
  const [threshold, setThreshold] = useState(String(chain.confirming_threshold));
  const [txUrl, setTxUrl] = useState(chain.explorer_tx_url);
  const [addressUrl, setAddressUrl] = useState(chain.explorer_address_url);
  const [enabled, setEnabled] = useState(chain.enabled);
  // Only what the user changed is sent.
  const patch: Omit<ChainUpdate, 'chain_id'> = {
    ...(name !== chain.name ? { name } : {}),
    ...(threshold !== String(chain.confirming_threshold) ? { confirming_threshold: asNumber(threshold) as number } : {}),
    ...(txUrl !== chain.explorer_tx_url ? { explorer_tx_url: txUrl } : {}),
    ...(addressUrl !== chain.explorer_address_url ? { explorer_address_url: addressUrl } : {}),
    ...(enabled !== chain.enabled ? { enabled } : {}),
  };
  return (
    <FormDialog
      id="edit-chain"
      title={`Edit chain ${chain.chain_id}`}
      submitLabel="Save"
      busyLabel="Saving…"
      canSubmit={Object.keys(patch).length > 0}
      onClose={onClose}
      action={async () => {
        onSaved(await updateChain({ chain_id: chain.chain_id, ...patch }));
        onClose();
      }}
    >
      <p className="note">
        <span className="mono">chain_identifier</span> <strong className="mono">{chain.chain_identifier}</strong> ·{' '}
        <span className="mono">native_token_id</span> <strong className="mono">{chain.native_token_id}</strong>. A chain changed here keeps
        its values when the catalogue file is seeded again.
      </p>
      <Field label={<FieldName field="name" />} htmlFor="chain-name">
        <input id="chain-name" value={name} onChange={(e) => setName(e.target.value)} autoFocus />
      </Field>
      <Field
        label={<FieldName field="confirming_threshold" />}
        htmlFor="chain-threshold"
        hint="Blocks after which a deposit counts as final (an integer, 0 or more)"
      >
        <input
          id="chain-threshold"
          className="mono input-short"
          inputMode="numeric"
          value={threshold}
          onChange={(e) => setThreshold(e.target.value)}
          spellCheck={false}
        />
      </Field>
      <Field
        label={<FieldName field="explorer_tx_url" />}
        htmlFor="chain-tx-url"
        hint={<>An https transaction page; {'{hash}'} stands for the hash</>}
      >
        <input id="chain-tx-url" className="mono" value={txUrl} onChange={(e) => setTxUrl(e.target.value)} spellCheck={false} />
      </Field>
      <Field
        label={<FieldName field="explorer_address_url" />}
        htmlFor="chain-address-url"
        hint={<>An https address page; {'{address}'} stands for the address</>}
      >
        <input
          id="chain-address-url"
          className="mono"
          value={addressUrl}
          onChange={(e) => setAddressUrl(e.target.value)}
          spellCheck={false}
        />
      </Field>
      <label className="check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        <FieldName field="enabled" />
      </label>
    </FormDialog>
  );
}

function EditTokenDialog({
  token,
  onClose,
  onSaved,
  onRemove,
}: {
  token: Token;
  onClose: () => void;
  onSaved: (t: Token) => void;
  onRemove: () => void;
}) {
  const [name, setName] = useState(token.name);
  const [decimal, setDecimal] = useState(String(token.decimal));
  const [dust, setDust] = useState(token.dust_threshold);
  const [canDeposit, setCanDeposit] = useState(token.can_deposit);
  const [canWithdraw, setCanWithdraw] = useState(token.can_withdraw);
  const patch: Omit<TokenUpdate, 'token_id'> = {
    ...(name !== token.name ? { name } : {}),
    ...(decimal.trim() !== String(token.decimal) ? { decimal: asNumber(decimal) as number } : {}),
    ...(dust !== token.dust_threshold ? { dust_threshold: dust.trim() } : {}),
    ...(canDeposit !== token.can_deposit ? { can_deposit: canDeposit } : {}),
    ...(canWithdraw !== token.can_withdraw ? { can_withdraw: canWithdraw } : {}),
  };
  return (
    <FormDialog
      id="edit-token"
      title={`Edit token ${token.token_id}`}
      submitLabel="Save"
      busyLabel="Saving…"
      canSubmit={Object.keys(patch).length > 0}
      onClose={onClose}
      action={async () => {
        onSaved(await updateToken({ token_id: token.token_id, ...patch }));
        onClose();
      }}
      footerStart={
        !token.is_native && (
          <button type="button" className="btn btn-danger-ghost" onClick={onRemove}>
            Remove token…
          </button>
        )
      }
    >
      <p className="note">
        <span className="mono">chain_id</span> <strong className="mono">{token.chain_id}</strong> · <span className="mono">symbol</span>{' '}
        <strong className="mono">{token.symbol}</strong>
        {!token.is_native && (
          <>
            {' '}
            · <span className="mono">contract_address</span> <strong className="mono break">{token.contract_address}</strong>
          </>
        )}
        . A token changed here keeps its values when the catalogue file is seeded again.
      </p>
      <Field label={<FieldName field="name" />} htmlFor="token-name">
        <input id="token-name" value={name} onChange={(e) => setName(e.target.value)} autoFocus />
      </Field>
      <Field
        label={<FieldName field="decimal" />}
        htmlFor="token-decimal"
        hint={`The token's decimal places (the contract's decimals, 0 to 36). Lowered only as far as the ledger's ${token.symbol} amounts allow: the service names a record with more places.`}
      >
        <input
          id="token-decimal"
          className="mono input-short"
          inputMode="numeric"
          value={decimal}
          onChange={(e) => setDecimal(e.target.value)}
          spellCheck={false}
        />
      </Field>
      <Field
        label={<FieldName field="dust_threshold" />}
        htmlFor="token-dust"
        hint={`Amounts below this count as dust (a decimal number in ${token.symbol}, 0 or more)`}
      >
        <input
          id="token-dust"
          className="mono input-short"
          inputMode="decimal"
          value={dust}
          onChange={(e) => setDust(e.target.value)}
          spellCheck={false}
        />
      </Field>
      <label className="check">
        <input type="checkbox" checked={canDeposit} onChange={(e) => setCanDeposit(e.target.checked)} />
        <FieldName field="can_deposit" />
      </label>
      <label className="check">
        <input type="checkbox" checked={canWithdraw} onChange={(e) => setCanWithdraw(e.target.checked)} />
        <FieldName field="can_withdraw" />
      </label>
    </FormDialog>
  );
}

/** Remove a token the ledger does not use (one added by mistake); the service refuses one a record uses, and says how many. */
function RemoveTokenDialog({ token, onClose, onRemoved }: { token: Token; onClose: () => void; onRemoved: (t: Token) => void }) {
  return (
    <ConfirmDialog
      title={`Remove token ${token.token_id}`}
      keepLabel="Keep the token"
      actLabel="Remove token"
      busyLabel="Removing…"
      action={async () => onRemoved(await call('catalogue-token-remove', { token_id: token.token_id }))}
      onClose={onClose}
    >
      <p>
        <strong className="mono">{token.token_id}</strong> ({token.symbol}, decimal {token.decimal}) on{' '}
        <span className="mono">{token.chain_id}</span>, contract <span className="mono break">{token.contract_address}</span>.
      </p>
      <p className="muted">
        Only a token no ledger record uses can be removed. Rows of its contract are then rejected as an unknown token until it is added
        again (the import dialog offers it, with its decimal to give).
      </p>
    </ConfirmDialog>
  );
}

/**
 * A chain's node (an EVM JSON-RPC URL, or a TRON full node / TronGrid): the ledger's records are
 * checked against it, and token details and balances read from it. Saving asks the node its chain
 * id first; the URL is kept by the service, never shown back whole.
 */
function NodeDialog({ chain, node, onClose, onSaved }: { chain: Chain; node: NodeInfo; onClose: () => void; onSaved: () => void }) {
  const [url, setUrl] = useState('');
  // The URL often carries the provider's key: masked as it is typed (a shared screen, a call), shown on asking.
  const [shown, setShown] = useState(false);
  // A chain the catalogue file lacks (one added by hand) has no chain id to check a node against until one is given.
  const [networkId, setNetworkId] = useState('');
  const [clearing, setClearing] = useState(false);
  const [error, setError] = useState<string>();
  const clear = async () => {
    setClearing(true);
    setError(undefined);
    try {
      await call('onchain-node-clear', { chain_id: chain.chain_id });
      onSaved();
      onClose();
    } catch (err) {
      setError(errorText(err));
      setClearing(false);
    }
  };
  return (
    <FormDialog
      id="chain-node"
      title={`Node for ${chain.chain_id}`}
      submitLabel="Check and save"
      busyLabel="Asking the node…"
      canSubmit={url.trim() !== '' && (node.network_id !== '' || networkId.trim() !== '')}
      onClose={onClose}
      action={async () => {
        if (node.network_id === '') await updateChain({ chain_id: chain.chain_id, network_id: networkId.trim() });
        await call('onchain-node-set', { chain_id: chain.chain_id, url: url.trim() });
        onSaved();
        onClose();
      }}
      footerStart={
        node.configured && (
          <button type="button" className="btn btn-danger-ghost" onClick={() => void clear()} disabled={clearing}>
            {clearing ? 'Clearing…' : 'Clear node'}
          </button>
        )
      }
    >
      <p className="note">
        {node.configured ? (
          <>
            Now: <span className="mono">{node.url}</span> (kept{' '}
            {node.kept === 'safe_storage' ? "sealed with the system's keychain" : 'in the data folder, readable by you only'}).
          </>
        ) : (
          <>No node is set: {chain.chain_id}&apos;s records are not checked against the chain.</>
        )}{' '}
        {node.network_id ? (
          <>
            The node must be of chain id <strong className="mono">{node.network_id}</strong> ({chain.name}): it is asked before it is kept.
          </>
        ) : (
          <>
            The catalogue has no chain id for {chain.chain_id}: give the one its nodes answer (eth_chainId, in decimal), kept with the
            chain.
          </>
        )}
      </p>
      {node.network_id === '' && (
        <Field label="Chain id" htmlFor="node-network-id" hint="e.g. 5000 for Mantle">
          <input
            id="node-network-id"
            className="mono input-short"
            inputMode="numeric"
            value={networkId}
            onChange={(e) => setNetworkId(e.target.value)}
          />
        </Field>
      )}
      <Field
        label="Node URL"
        htmlFor="node-url"
        hint={
          chain.chain_identifier === 'TRON'
            ? 'A TRON full node’s HTTP API, e.g. https://api.trongrid.io (an API key as https://KEY@api.trongrid.io)'
            : 'An EVM JSON-RPC URL, e.g. https://mainnet.infura.io/v3/KEY or http://127.0.0.1:8545'
        }
      >
        <div className="input-with-button">
          <input
            id="node-url"
            className={shown ? 'mono' : 'mono masked'}
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            autoFocus
            placeholder={node.configured ? 'A new URL replaces the one kept' : 'https://…'}
          />
          <button type="button" className="btn btn-ghost btn-small" aria-pressed={shown} onClick={() => setShown(!shown)}>
            {shown ? 'Hide URL' : 'Show URL'}
          </button>
        </div>
      </Field>
      <p className="muted small" data-testid="node-privacy">
        What goes to this node: the hashes of {chain.chain_id}&apos;s ledger records when you check them, your wallets&apos; addresses and
        block numbers when you compare balances, and token contracts when their details are read. Nothing else (no amounts, names or books).
        The URL often carries your provider&apos;s key: it stays in this app&apos;s data folder, is never shown whole, never sent over the
        /nps API and never written to the log.
      </p>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </FormDialog>
  );
}

function ChainsTab() {
  const chains = useReference((s) => s.chains.data);
  const loadChains = useReference((s) => s.loadChains);
  const [chainId, setChainId] = useState('');
  const [identifier, setIdentifier] = useState('');
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const [editing, setEditing] = useState<Chain>();
  const [noding, setNoding] = useState<Chain>();
  // Others' changes (another window, the command line): the chains and their nodes load again.
  const othersChanged = useChangeKey('catalogue', 'settings');
  const nodes = useQuery(`onchain-nodes:${othersChanged}`, () => call('onchain-nodes-list', {}));
  const nodeOf = (id: string) => nodes.data?.find((n) => n.chain_id === id);
  const q = {
    page,
    page_size: pageSize,
    ...(chainId ? { chain_id: chainId } : {}),
    ...(identifier ? { chain_identifier: identifier } : {}),
  };
  const result = useQuery(`${JSON.stringify(q)}:${othersChanged}`, () => call('catalogue-chains-list', q));
  const saved = useSavedRows<Chain>(result.data, (c) => c.chain_id);
  const onSaved = (c: Chain) => {
    saved.keep(c);
    result.reload();
    // Other screens pick chains (and build explorer links) from the reference list.
    loadChains(true);
  };
  const quick = useQuickSave<Chain>((c, patch) => updateChain({ chain_id: c.chain_id, ...patch }), onSaved);
  const identifiers = [...new Set((chains ?? []).map((c) => c.chain_identifier))].sort();
  const reset =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v);
      setPage(1);
    };
  const columns: SimpleColumn<Chain>[] = [
    { key: 'chain_id', header: <FieldName field="chain_id" />, render: (c) => <span className="mono strong">{c.chain_id}</span> },
    {
      key: 'name',
      header: <FieldName field="name" />,
      render: (c) => (
        <>
          {c.name}
          {c.is_testnet && (
            <span className="nowrap" title="is_testnet: true">
              {' '}
              <Badge tone="warn">testnet</Badge>
            </span>
          )}
        </>
      ),
    },
    {
      key: 'chain_identifier',
      header: <FieldName field="chain_identifier" />,
      render: (c) => <Badge tone="neutral">{c.chain_identifier}</Badge>,
    },
    {
      key: 'native_token_id',
      header: <FieldName field="native_token_id" />,
      render: (c) => <span className="mono">{c.native_token_id}</span>,
    },
    {
      key: 'confirming_threshold',
      header: <FieldName field="confirming_threshold" />,
      align: 'right',
      render: (c) => <span className="num">{c.confirming_threshold}</span>,
    },
    {
      // Two fields in one column, one above the other, so the row fits the window.
      key: 'explorer',
      header: (
        <span className="fname" title="explorer_tx_url, explorer_address_url">
          <span className="fname-label">Explorer URLs</span>
          <code className="fname-key">explorer_tx_url</code>
          <code className="fname-key">explorer_address_url</code>
        </span>
      ),
      render: (c) => (
        <span className="stack">
          <Template field="explorer_tx_url" value={c.explorer_tx_url} />
          <Template field="explorer_address_url" value={c.explorer_address_url} />
        </span>
      ),
    },
    {
      key: 'node',
      header: (
        <span className="fname" title="The node the chain's records are checked against (not an /nps field)">
          <span className="fname-label">Node</span>
        </span>
      ),
      render: (c) => {
        const n = nodeOf(c.chain_id);
        if (!n) return <NoValue />;
        if (!n.supported)
          return (
            <span
              className="muted small"
              title={`Records are checked against the nodes of EVM and TRON chains; ${c.chain_id} is ${n.family}`}
            >
              no checks
            </span>
          );
        return (
          <span className="node-cell">
            {n.configured ? (
              <span
                className="mono small"
                title={n.kept === 'safe_storage' ? "sealed with the system's keychain" : 'kept in the data folder'}
              >
                {n.url}
              </span>
            ) : (
              <span className="muted small">none</span>
            )}{' '}
            <button type="button" className="btn btn-small" onClick={() => setNoding(c)} aria-label={`Node of ${c.chain_id}`}>
              {n.configured ? 'Change' : 'Set'}
            </button>
          </span>
        );
      },
    },
    {
      key: 'enabled',
      header: <FieldName field="enabled" />,
      render: (c) => (
        <Switch
          checked={c.enabled}
          label={`enabled: ${c.chain_id}`}
          disabled={quick.busy !== undefined}
          onChange={(v) => void quick.run(c.chain_id, c, { enabled: v })}
        />
      ),
    },
    {
      key: 'edit',
      header: <span className="sr-only">Actions</span>,
      align: 'right',
      render: (c) => <EditButton id={c.chain_id} onClick={() => setEditing(c)} />,
    },
  ];
  return (
    <>
      <div className="filters">
        <ChainIdSelect id="f-chain-id" value={chainId} onChange={reset(setChainId)} />
        <Field label="Chain identifier" htmlFor="f-chain-identifier" hint="ETH covers every EVM chain">
          <select id="f-chain-identifier" value={identifier} onChange={(e) => reset(setIdentifier)(e.target.value)}>
            <option value="">Any identifier</option>
            {identifiers.map((i) => (
              <option key={i} value={i}>
                {i}
              </option>
            ))}
          </select>
        </Field>
        <PageSize id="f-chain-page-size" value={pageSize} onChange={reset(setPageSize)} />
      </div>
      <CatalogueResult
        what="chains"
        result={result}
        rows={result.data && saved.show(result.data.chains)}
        columns={columns}
        rowKey={(c) => c.chain_id}
        rowClass={(c) => (c.enabled ? undefined : 'row-off')}
        page={page}
        pageSize={pageSize}
        onPage={setPage}
        error={quick.error}
      />
      {editing && <EditChainDialog chain={editing} onClose={() => setEditing(undefined)} onSaved={onSaved} />}
      {noding && nodeOf(noding.chain_id) && (
        <NodeDialog chain={noding} node={nodeOf(noding.chain_id)!} onClose={() => setNoding(undefined)} onSaved={nodes.reload} />
      )}
    </>
  );
}

function TokensTab() {
  const [chainId, setChainId] = useState('');
  const [tokenText, setTokenText] = useState('');
  const [tokenId, setTokenId] = useState('');
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const [editing, setEditing] = useState<Token>();
  const [removing, setRemoving] = useState<Token>();
  const q = { page, page_size: pageSize, ...(chainId ? { chain_id: chainId } : {}), ...(tokenId ? { token_id: tokenId } : {}) };
  const othersChanged = useChangeKey('catalogue');
  const result = useQuery(`${JSON.stringify(q)}:${othersChanged}`, () => call('catalogue-tokens-list', q));
  const saved = useSavedRows<Token>(result.data, (t) => t.token_id);
  const onSaved = (t: Token) => {
    saved.keep(t);
    result.reload();
  };
  const quick = useQuickSave<Token>((t, patch) => updateToken({ token_id: t.token_id, ...patch }), onSaved);
  const flag = (field: 'can_deposit' | 'can_withdraw'): SimpleColumn<Token> => ({
    key: field,
    header: <FieldName field={field} />,
    render: (t) => (
      <Switch
        checked={t[field]}
        label={`${field}: ${t.token_id}`}
        disabled={quick.busy !== undefined}
        onChange={(v) => void quick.run(t.token_id, t, { [field]: v })}
      />
    ),
  });
  const columns: SimpleColumn<Token>[] = [
    { key: 'token_id', header: <FieldName field="token_id" />, render: (t) => <span className="mono strong">{t.token_id}</span> },
    { key: 'chain_id', header: <FieldName field="chain_id" />, render: (t) => <span className="mono">{t.chain_id}</span> },
    { key: 'symbol', header: <FieldName field="symbol" />, render: (t) => t.symbol },
    { key: 'name', header: <FieldName field="name" />, render: (t) => t.name },
    {
      key: 'contract_address',
      header: <FieldName field="contract_address" />,
      render: (t) =>
        t.is_native ? (
          <Badge tone="neutral">native coin</Badge>
        ) : (
          <ExplorerLink chainId={t.chain_id} kind="address" value={t.contract_address} />
        ),
    },
    { key: 'decimal', header: <FieldName field="decimal" />, align: 'right', render: (t) => <span className="num">{t.decimal}</span> },
    {
      key: 'dust_threshold',
      header: <FieldName field="dust_threshold" />,
      align: 'right',
      render: (t) => <Amount value={t.dust_threshold} />,
    },
    flag('can_deposit'),
    flag('can_withdraw'),
    {
      key: 'edit',
      header: <span className="sr-only">Actions</span>,
      align: 'right',
      render: (t) => <EditButton id={t.token_id} onClick={() => setEditing(t)} />,
    },
  ];
  return (
    <>
      <form
        className="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setTokenId(tokenText.trim());
          setPage(1);
        }}
      >
        <ChainIdSelect
          id="f-token-chain"
          value={chainId}
          onChange={(v) => {
            setChainId(v);
            setPage(1);
          }}
        />
        <Field label="Token ID" htmlFor="f-token-id" hint="Exact match, e.g. TRON_USDT; Enter to apply">
          <input
            id="f-token-id"
            className="mono"
            value={tokenText}
            placeholder="Any token"
            onChange={(e) => setTokenText(e.target.value)}
            spellCheck={false}
          />
        </Field>
        <div className="filters-actions">
          <button type="submit" className="btn">
            Apply
          </button>
          {(tokenId || chainId) && (
            <button
              type="button"
              className="btn btn-ghost"
              onClick={() => {
                setChainId('');
                setTokenText('');
                setTokenId('');
                setPage(1);
              }}
            >
              Clear
            </button>
          )}
        </div>
        <PageSize
          id="f-token-page-size"
          value={pageSize}
          onChange={(n) => {
            setPageSize(n);
            setPage(1);
          }}
        />
      </form>
      <CatalogueResult
        what="tokens"
        result={result}
        rows={result.data && saved.show(result.data.tokens)}
        columns={columns}
        rowKey={(t) => t.token_id}
        page={page}
        pageSize={pageSize}
        onPage={setPage}
        error={quick.error}
      />
      {editing && (
        <EditTokenDialog
          token={editing}
          onClose={() => setEditing(undefined)}
          onSaved={onSaved}
          onRemove={() => {
            setRemoving(editing);
            setEditing(undefined);
          }}
        />
      )}
      {removing && <RemoveTokenDialog token={removing} onClose={() => setRemoving(undefined)} onRemoved={() => result.reload()} />}
    </>
  );
}

function CatalogueResult<T>({
  what,
  result,
  rows,
  columns,
  rowKey,
  rowClass,
  page,
  pageSize,
  onPage,
  error,
}: {
  what: string;
  result: QueryState<{ total: number }>;
  rows: T[] | undefined;
  columns: SimpleColumn<T>[];
  rowKey: (r: T) => string;
  rowClass?: (r: T) => string | undefined;
  page: number;
  pageSize: number;
  onPage: (p: number) => void;
  /** A quick change that did not save. */
  error?: ReactNode;
}) {
  if (result.error) return <ErrorBox message={result.error} onRetry={result.reload} title={`Could not load ${what}`} />;
  if (!result.data || !rows) return <Loading what={what} />;
  const { total } = result.data;
  return (
    <div className={result.loading ? 'panel is-loading' : 'panel'}>
      {error && (
        <p className="banner banner-bad" role="alert">
          Not saved: {error}
        </p>
      )}
      {rows.length === 0 ? (
        <Empty title={total === 0 ? `No ${what} match these filters` : `This page is past the end`}>
          {total === 0 ? 'Filters match exactly: check the spelling and the case.' : `There are ${total} ${what}; go back a page.`}
        </Empty>
      ) : (
        <div className="catalogue-table">
          <DataTable label={what} columns={columns} rows={rows} rowKey={rowKey} rowClass={rowClass} />
        </div>
      )}
      <Pager page={page} pageSize={pageSize} total={total} onPage={onPage} busy={result.loading} />
    </div>
  );
}

export function CatalogueScreen() {
  const sub = useRoute((s) => s.sub);
  const go = useRoute((s) => s.go);
  const tab = sub === 'tokens' ? 'tokens' : 'chains';
  return (
    <div className="screen">
      <PageHeader
        title="Catalogue"
        subtitle="Chains and tokens the service knows, as the /nps/chains and /nps/tokens endpoints list them. Switch a chain or a token's deposits and withdrawals on or off here; edit a row's thresholds and explorer links, or a token's decimal; remove a token the ledger does not use; set the node a chain's records are checked against."
      />
      <Tabs
        label="Catalogue"
        tabs={[
          { key: 'chains', label: 'Chains' },
          { key: 'tokens', label: 'Tokens' },
        ]}
        active={tab}
        onChange={(k) => go({ screen: 'catalogue', sub: k })}
      />
      {tab === 'chains' ? <ChainsTab /> : <TokensTab />}
    </div>
  );
}
