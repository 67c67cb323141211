import { useState } from 'react';
import type { Chain, Token } from '../../../shared/catalogue';
import { call } from '../api';
import { DataTable, type SimpleColumn } from '../components/data-table';
import { ExplorerLink } from '../components/links';
import { Amount, Badge, Empty, ErrorBox, Field, Loading, PageHeader, Pager, Tabs } from '../components/ui';
import { useQuery } from '../lib/use-query';
import { useReference } from '../stores/reference';
import { useRoute } from '../stores/route';

const PAGE_SIZES = [10, 20, 50, 100];

const chainColumns: SimpleColumn<Chain>[] = [
  { key: 'id', header: 'Chain ID', render: (c) => <span className="mono strong">{c.chain_id}</span> },
  { key: 'name', header: 'Name', render: (c) => c.name },
  { key: 'family', header: 'Identifier', render: (c) => <Badge tone="neutral">{c.chain_identifier}</Badge> },
  { key: 'native', header: 'Native token', render: (c) => <span className="mono">{c.native_token_id}</span> },
  { key: 'net', header: 'Network', render: (c) => (c.is_testnet ? <Badge tone="warn">testnet</Badge> : <span className="muted">mainnet</span>) },
  { key: 'conf', header: 'Confirmations', align: 'right', render: (c) => <span className="num">{c.confirmations}</span> },
  { key: 'explorer', header: 'Explorer', render: (c) => <span className="muted">{c.explorer_url.replace(/^https:\/\//, '')}</span> },
];

const tokenColumns: SimpleColumn<Token>[] = [
  { key: 'id', header: 'Token ID', render: (t) => <span className="mono strong">{t.token_id}</span> },
  { key: 'chain', header: 'Chain', render: (t) => <span className="mono">{t.chain_id}</span> },
  { key: 'symbol', header: 'Symbol', render: (t) => t.symbol },
  { key: 'name', header: 'Name', render: (t) => t.name },
  {
    key: 'contract',
    header: 'Contract',
    render: (t) => (t.is_native ? <Badge tone="neutral">native coin</Badge> : <ExplorerLink chainId={t.chain_id} kind="address" value={t.contract_address} />),
  },
  { key: 'decimals', header: 'Decimals', align: 'right', render: (t) => <span className="num">{t.decimals}</span> },
  { key: 'dust', header: 'Dust threshold', align: 'right', render: (t) => <Amount value={t.dust_threshold} /> },
];

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

function ChainsTab() {
  const chains = useReference((s) => s.chains.data);
  const [chainId, setChainId] = useState('');
  const [identifier, setIdentifier] = useState('');
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const q = { page, page_size: pageSize, ...(chainId ? { chain_id: chainId } : {}), ...(identifier ? { chain_identifier: identifier } : {}) };
  const result = useQuery(JSON.stringify(q), () => call('catalogue-chains-list', q));
  const identifiers = [...new Set((chains ?? []).map((c) => c.chain_identifier))].sort();
  const reset = <T,>(set: (v: T) => void) => (v: T) => {
    set(v);
    setPage(1);
  };
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
      <CatalogueResult what="chains" result={result} columns={chainColumns} rowKey={(c) => c.chain_id} page={page} pageSize={pageSize} onPage={setPage} />
    </>
  );
}

function TokensTab() {
  const [chainId, setChainId] = useState('');
  const [tokenText, setTokenText] = useState('');
  const [tokenId, setTokenId] = useState('');
  const [page, setPage] = useState(1);
  const [pageSize, setPageSize] = useState(20);
  const q = { page, page_size: pageSize, ...(chainId ? { chain_id: chainId } : {}), ...(tokenId ? { token_id: tokenId } : {}) };
  const result = useQuery(JSON.stringify(q), () => call('catalogue-tokens-list', q));
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
          <input id="f-token-id" className="mono" value={tokenText} placeholder="Any token" onChange={(e) => setTokenText(e.target.value)} spellCheck={false} />
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
      <CatalogueResult what="tokens" result={result} columns={tokenColumns} rowKey={(t) => t.token_id} page={page} pageSize={pageSize} onPage={setPage} />
    </>
  );
}

function CatalogueResult<T>({
  what,
  result,
  columns,
  rowKey,
  page,
  pageSize,
  onPage,
}: {
  what: string;
  result: ReturnType<typeof useQuery<{ list: T[]; total: number }>>;
  columns: SimpleColumn<T>[];
  rowKey: (r: T) => string;
  page: number;
  pageSize: number;
  onPage: (p: number) => void;
}) {
  if (result.error) return <ErrorBox message={result.error} onRetry={result.reload} title={`Could not load ${what}`} />;
  if (!result.data) return <Loading what={what} />;
  const { list, total } = result.data;
  return (
    <div className={result.loading ? 'panel is-loading' : 'panel'}>
      {list.length === 0 ? (
        <Empty title={total === 0 ? `No ${what} match these filters` : `This page is past the end`}>
          {total === 0 ? 'Filters match exactly: check the spelling and the case.' : `There are ${total} ${what}; go back a page.`}
        </Empty>
      ) : (
        <DataTable label={what} columns={columns} rows={list} rowKey={rowKey} />
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
      <PageHeader title="Catalogue" subtitle="Chains and tokens the service knows, as the /nps/chains and /nps/tokens endpoints list them." />
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
