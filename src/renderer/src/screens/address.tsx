import { useState } from 'react';
import type { AddressCheckDetail } from '../../../shared/address';
import { call, errorText } from '../api';
import { Icon } from '../components/icons';
import { ExplorerLink } from '../components/links';
import { CopyButton, ErrorBox, Field, Loading, PageHeader } from '../components/ui';
import { useReference } from '../stores/reference';

const CHECKABLE = new Set(['ETH', 'TRON']);

function whyNot(identifier: string): string {
  return `${identifier} addresses cannot be checked: only EVM (ETH family) and TRON chains are supported`;
}

function Verdict({ result }: { result: AddressCheckDetail }) {
  const differs = result.checksummed !== null && result.checksummed !== result.address;
  return (
    <section className={`verdict ${result.is_valid ? 'verdict-valid' : 'verdict-invalid'}`} aria-live="polite" data-testid="verdict">
      <div className="verdict-head">
        <span className="verdict-icon">
          <Icon name={result.is_valid ? 'check' : 'cross'} size={22} />
        </span>
        <div>
          <h2>{result.is_valid ? 'Valid address' : 'Not a valid address'}</h2>
          <p className="verdict-reason">{result.reason}</p>
        </div>
      </div>
      <dl className="kv">
        <dt>Chain</dt>
        <dd>
          <span className="mono">{result.chain_id}</span> <span className="muted">({result.family === 'ETH' ? 'EVM' : 'TRON'})</span>
        </dd>
        <dt>As entered</dt>
        <dd className="mono break">{JSON.stringify(result.address)}</dd>
        {result.checksummed !== null && (
          <>
            <dt>Checksummed (EIP-55)</dt>
            <dd className="with-action">
              <span className="mono break" data-testid="checksummed">
                {result.checksummed}
              </span>
              <CopyButton text={result.checksummed} />
            </dd>
          </>
        )}
        {result.is_valid && (
          <>
            <dt>Explorer</dt>
            <dd>
              <ExplorerLink chainId={result.chain_id} kind="address" value={result.checksummed ?? result.address} short={false} />
            </dd>
          </>
        )}
      </dl>
      {differs && result.is_valid && (
        <p className="note">The address is valid but not in its checksummed form; use the form above when you write it down.</p>
      )}
    </section>
  );
}

export function AddressScreen() {
  const chains = useReference((s) => s.chains);
  const loadChains = useReference((s) => s.loadChains);
  const [chainId, setChainId] = useState('ETH');
  const [address, setAddress] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<AddressCheckDetail>();
  const [error, setError] = useState<string>();

  const chain = chains.data?.find((c) => c.chain_id === chainId);
  const checkable = chain ? CHECKABLE.has(chain.chain_identifier) : false;

  const check = async () => {
    if (!address || !checkable) return;
    setBusy(true);
    setError(undefined);
    try {
      setResult(await call('address-check', { address, chain_id: chainId }));
    } catch (err) {
      setResult(undefined);
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  if (chains.error && !chains.data)
    return <ErrorBox message={chains.error} onRetry={() => loadChains(true)} title="Could not load the chains" />;
  if (!chains.data) return <Loading what="chains" />;

  const unsupported = chains.data.filter((c) => !CHECKABLE.has(c.chain_identifier));
  return (
    <div className="screen screen-narrow">
      <PageHeader
        title="Address check"
        subtitle="Whether an address is well-formed for a chain, before it goes into the books. Nothing is sent to a network."
      />
      <form
        className="card form-grid"
        onSubmit={(e) => {
          e.preventDefault();
          void check();
        }}
      >
        <Field label="Chain" htmlFor="addr-chain" hint={chain && !checkable ? whyNot(chain.chain_identifier) : undefined}>
          <select
            id="addr-chain"
            value={chainId}
            onChange={(e) => {
              setChainId(e.target.value);
              setResult(undefined);
              setError(undefined);
            }}
          >
            {chains.data.map((c) => (
              <option key={c.chain_id} value={c.chain_id} disabled={!CHECKABLE.has(c.chain_identifier)}>
                {c.chain_id} — {c.name}
                {CHECKABLE.has(c.chain_identifier) ? '' : ` (not checkable: ${c.chain_identifier})`}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Address" htmlFor="addr-input" hint="Checked exactly as typed: spaces before or after make it invalid.">
          <input
            id="addr-input"
            className="mono"
            value={address}
            onChange={(e) => setAddress(e.target.value)}
            placeholder={chain?.chain_identifier === 'TRON' ? 'T… or 41…' : '0x…'}
            spellCheck={false}
            autoComplete="off"
            autoFocus
          />
        </Field>
        <div className="form-actions">
          <button type="submit" className="btn btn-primary" disabled={busy || !address || !checkable}>
            {busy ? 'Checking…' : 'Check address'}
          </button>
        </div>
      </form>
      {error && <ErrorBox message={error} title="The check did not run" />}
      {result && <Verdict result={result} />}
      {unsupported.length > 0 && (
        <p className="note">
          Not checkable here: {unsupported.map((c) => c.chain_id).join(', ')} — their address formats (
          {[...new Set(unsupported.map((c) => c.chain_identifier))].join(', ')}) are not covered by the address check, which supports EVM
          and TRON only.
        </p>
      )}
    </div>
  );
}
