import { useState } from 'react';
import type { NeededChoice } from '../../../../shared/ledger';
import { errorText } from '../../api';
import { FieldName } from '../../components/ui';
import { useImportWizard } from './wizard-store';

type Suggested = NonNullable<NeededChoice['add_chain']>;

/** Whole numbers go as numbers; anything else goes as typed, and the service says what is wrong with it. */
const asNumber = (text: string): number => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : NaN);

function TextField({
  field,
  value,
  onChange,
  className,
  placeholder,
}: {
  field: string;
  value: string;
  onChange: (v: string) => void;
  className: string;
  placeholder?: string;
}) {
  return (
    <label className="inline-field add-chain-field">
      <FieldName field={field} />
      <input
        className={`mono ${className}`}
        value={value}
        placeholder={placeholder}
        onChange={(e) => onChange(e.target.value)}
        spellCheck={false}
      />
    </label>
  );
}

/**
 * A chain the catalogue lacks (no chain has the file's coin), added in place: what the file says of
 * it (its family, its coin, the decimal places of an EVM coin) is filled in; the user checks it,
 * names the chain, and adds it. The file is then read again, and its chain is the one added.
 */
export function AddChain({ suggested }: { suggested: Suggested }) {
  const addChain = useImportWizard((s) => s.addChain);
  const [chainId, setChainId] = useState(suggested.chain_id);
  const [name, setName] = useState('');
  const [family, setFamily] = useState(suggested.chain_identifier);
  const [symbol, setSymbol] = useState(suggested.native_symbol);
  const [decimalText, setDecimalText] = useState(suggested.native_decimal === null ? '' : String(suggested.native_decimal));
  const [threshold, setThreshold] = useState('12');
  const [txUrl, setTxUrl] = useState('');
  const [addressUrl, setAddressUrl] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  // A refusal is about the values it was given: editing any of them takes it away.
  const edit = (setter: (v: string) => void) => (v: string) => {
    setter(v);
    setError(undefined);
  };
  const ready = [chainId, name, family, symbol, decimalText, threshold].every((v) => v.trim() !== '');
  const add = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await addChain({
        chain_id: chainId.trim(),
        name: name.trim(),
        chain_identifier: family.trim(),
        native_symbol: symbol.trim(),
        native_decimal: asNumber(decimalText),
        confirming_threshold: asNumber(threshold),
        explorer_tx_url: txUrl.trim(),
        explorer_address_url: addressUrl.trim(),
      });
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <div className="add-chain" role="group" aria-label="Add chain">
      <p className="muted small">
        Add the chain to the catalogue: its family, its coin and the coin&apos;s decimal places are filled in from the file; check them,
        name the chain, and add it. Explorer links are optional.
      </p>
      <div className="add-chain-form">
        <TextField field="chain_id" value={chainId} onChange={edit(setChainId)} className="input-token-id" placeholder="e.g. MANTLE" />
        <TextField field="name" value={name} onChange={edit(setName)} className="input-token-id" placeholder="e.g. Mantle" />
        <TextField field="chain_identifier" value={family} onChange={edit(setFamily)} className="input-symbol" />
        <TextField field="native_symbol" value={symbol} onChange={edit(setSymbol)} className="input-symbol" />
        <TextField field="native_decimal" value={decimalText} onChange={edit(setDecimalText)} className="input-decimal" />
        <TextField field="confirming_threshold" value={threshold} onChange={edit(setThreshold)} className="input-decimal" />
        <TextField
          field="explorer_tx_url"
          value={txUrl}
          onChange={edit(setTxUrl)}
          className="input-url"
          placeholder="https://…/tx/{hash}"
        />
        <TextField
          field="explorer_address_url"
          value={addressUrl}
          onChange={edit(setAddressUrl)}
          className="input-url"
          placeholder="https://…/address/{address}"
        />
      </div>
      <div>
        <button type="button" className="btn btn-primary btn-small" disabled={busy || !ready} onClick={() => void add()}>
          {busy ? 'Adding…' : 'Add chain'}
        </button>
      </div>
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
