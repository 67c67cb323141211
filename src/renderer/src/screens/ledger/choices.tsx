import { useEffect, useState, type InputHTMLAttributes } from 'react';
import type { ImportChoices, NeededChoice } from '../../../../shared/ledger';
import { call } from '../../api';
import { firstDateOrderExample } from '../../lib/date-order';
import { shorten } from '../../lib/format';
import { useQuery } from '../../lib/use-query';
import { useReference } from '../../stores/reference';
import { AddChain } from './add-chain';
import { useImportWizard } from './wizard-store';

/*
 * What the file leaves open, asked as questions, and what was read without asking, on one line the
 * user can change. Every change reads the file again (wizard-store), so the questions, the problem
 * and the first rows always answer the current choices.
 */

type Separator = NonNullable<ImportChoices['decimal_separator']>;
type DateOrder = NonNullable<ImportChoices['date_order']>;

const SEPARATORS: { value: Separator; label: string }[] = [
  { value: ',', label: '1.234,56 (comma)' },
  { value: '.', label: '1,234.56 (point)' },
];
const DATE_ORDERS: { value: DateOrder; label: string }[] = [
  { value: 'day_first', label: 'day first (31/12)' },
  { value: 'month_first', label: 'month first (12/31)' },
];
export const SEPARATOR_LABEL: Record<Separator, string> = { '.': 'decimal point (1,234.56)', ',': 'decimal comma (1.234,56)' };
export const DATE_ORDER_LABEL: Record<DateOrder, string> = { day_first: 'day first (31/12)', month_first: 'month first (12/31)' };

const UTC_OFFSET = /^[+-](0\d|1[0-4]):[0-5]\d$/;
const ZONE_LABEL: Record<string, string> = { UTC: 'UTC', '+08:00': 'UTC+08:00 (Beijing, Singapore: Tronscan shows this time)' };
const sentence = (s: string) => s.charAt(0).toUpperCase() + s.slice(1) + (/[.!?]$/.test(s) ? '' : '.');

/**
 * A text field whose value counts once the user leaves it or presses Enter: reading the file again
 * on every key would move a question away while its answer is being typed.
 */
function CommitInput({
  value,
  onCommit,
  ...rest
}: { value: string; onCommit: (value: string) => void } & Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'>) {
  const [text, setText] = useState(value);
  const [prev, setPrev] = useState(value);
  if (value !== prev) {
    setPrev(value);
    setText(value);
  }
  const commit = () => {
    if (text.trim() !== value) onCommit(text.trim());
  };
  return (
    <input
      {...rest}
      value={text}
      onChange={(e) => setText(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => {
        if (e.key === 'Enter') commit();
      }}
      spellCheck={false}
    />
  );
}

function useChainName(): (id: string) => string {
  const chains = useReference((s) => s.chains.data);
  const loadChains = useReference((s) => s.loadChains);
  useEffect(() => loadChains(), [loadChains]);
  return (id) => {
    const name = chains?.find((c) => c.chain_id === id)?.name;
    return name && name !== id ? `${id} (${name})` : id;
  };
}

/** The wallet every row goes to, for files without a wallet_id column: one by its name, a new named one, or a new unnamed one. */
export function WalletSelect({ id, disabled }: { id: string; disabled?: boolean }) {
  const wallets = useReference((s) => s.wallets.data);
  const loadWallets = useReference((s) => s.loadWallets);
  const walletId = useImportWizard((s) => s.walletId);
  const walletName = useImportWizard((s) => s.walletName);
  const setWallet = useImportWizard((s) => s.setWallet);
  // A file without a wallet_id column (explorer exports) has no wallet to take rows "from the file".
  const fromFile = useImportWizard((s) => Boolean(s.mapping.columns?.wallet_id || s.mapping.constants?.wallet_id));
  useEffect(() => loadWallets(), [loadWallets]);
  const existing = walletName?.trim()
    ? wallets?.find((w) => w.name !== '' && w.name.toLowerCase() === walletName.trim().toLowerCase())
    : undefined;
  return (
    <>
      <select
        id={id}
        value={walletId || (walletName !== null ? 'named' : '')}
        onChange={(e) => {
          const v = e.target.value;
          setWallet(
            v === 'new'
              ? { walletId: crypto.randomUUID(), walletName: null }
              : v === 'named'
                ? { walletId: '', walletName: '' }
                : { walletId: v, walletName: null },
          );
        }}
        disabled={disabled}
      >
        {fromFile ? (
          <option value="">From the file</option>
        ) : (
          <option value="" disabled>
            Choose a wallet…
          </option>
        )}
        {(wallets ?? []).map((x) => (
          <option key={x.wallet_id} value={x.wallet_id} title={x.wallet_id}>
            {x.name || `Unnamed ${shorten(x.wallet_id, 8, 4)}`}
          </option>
        ))}
        {walletId && !(wallets ?? []).some((x) => x.wallet_id === walletId) && (
          <option value={walletId} title={walletId}>
            New unnamed wallet {shorten(walletId, 8, 4)}
          </option>
        )}
        <option value="named">New wallet named…</option>
        <option value="new">New unnamed wallet</option>
      </select>
      {walletName !== null && (
        <span className="wallet-name-input">
          <input
            id={`${id}-name`}
            aria-label="Name of the new wallet"
            placeholder="Name of the new wallet"
            value={walletName}
            maxLength={100}
            autoFocus
            disabled={disabled}
            onChange={(e) => setWallet({ walletName: e.target.value })}
          />
          {existing && (
            <span className="muted small" title={existing.wallet_id}>
              {' '}
              A wallet has this name: its rows go there.
            </span>
          )}
        </span>
      )}
    </>
  );
}

function RadioChoice<V extends string>({
  name,
  options,
  value,
  onChange,
}: {
  name: string;
  options: { value: V; label: string }[];
  value: V | undefined;
  onChange: (v: V) => void;
}) {
  return (
    <div className="question-options">
      {options.map((o) => (
        <label key={o.value} className="radio">
          <input type="radio" name={name} value={o.value} checked={value === o.value} onChange={() => onChange(o.value)} />
          <span className={o.label.match(/^[\d.,]/) ? 'mono' : undefined}>{o.label}</span>
        </label>
      ))}
    </div>
  );
}

const QUESTION: Record<NeededChoice['field'], string> = {
  chain_id: 'Which chain was this file exported from?',
  token_id: 'Which token are the rows of?',
  decimal_separator: 'Which decimal separator do the amounts use?',
  date_order: 'In which order are day and month written?',
  time_zone: 'In which time zone are the times written?',
  wallet_address: 'Which address was this file exported for?',
  wallet_id: 'Which wallet are these rows of?',
};

function Question({ need, chainId }: { need: NeededChoice; chainId: string | null }) {
  const choices = useImportWizard((s) => s.choices);
  const setChoices = useImportWizard((s) => s.setChoices);
  const walletAddress = useImportWizard((s) => s.walletAddress);
  const setWallet = useImportWizard((s) => s.setWallet);
  const sample = useImportWizard((s) => s.detect?.sample);
  const sampleCells = (sample ?? []).flatMap((row) => Object.values(row));
  const chainName = useChainName();
  let control;
  switch (need.field) {
    case 'chain_id':
      control =
        need.add_chain && need.options.length === 0 ? (
          <AddChain suggested={need.add_chain} />
        ) : (
          <>
            <select
              aria-label="Chain of the file"
              value={choices.chain_id ?? ''}
              onChange={(e) => setChoices({ chain_id: e.target.value || undefined })}
            >
              <option value="">Choose a chain…</option>
              {need.options.map((id) => (
                <option key={id} value={id}>
                  {chainName(id)}
                </option>
              ))}
            </select>
            {need.add_chain && (
              <details className="add-chain-more">
                <summary>The chain is not in the list</summary>
                <AddChain suggested={need.add_chain} />
              </details>
            )}
          </>
        );
      break;
    case 'decimal_separator':
      control = (
        <RadioChoice
          name="q-decimal"
          options={SEPARATORS}
          value={choices.decimal_separator}
          onChange={(v) => setChoices({ decimal_separator: v })}
        />
      );
      break;
    case 'date_order': {
      // What each answer makes of the file's own date: "05/03/2022 → 5 March 2022" or "→ 3 May 2022".
      const example = firstDateOrderExample([...[...need.reason.matchAll(/"([^"]+)"/g)].map((m) => m[1]!), ...sampleCells]);
      control = (
        <RadioChoice
          name="q-date-order"
          options={
            example
              ? [
                  { value: 'day_first', label: `day first: ${example.date} → ${example.day_first}` },
                  { value: 'month_first', label: `month first: ${example.date} → ${example.month_first}` },
                ]
              : DATE_ORDERS
          }
          value={choices.date_order}
          onChange={(v) => setChoices({ date_order: v })}
        />
      );
      break;
    }
    case 'time_zone':
      control = (
        <>
          <RadioChoice
            name="q-time-zone"
            options={need.options.map((z) => ({ value: z, label: ZONE_LABEL[z] ?? z }))}
            value={need.options.find((z) => z === choices.time_zone)}
            onChange={(time_zone) => setChoices({ time_zone })}
          />
          <span className="question-other">
            <span className="muted small">another offset:</span>
            <OffsetInput offset={choices.time_zone ?? ''} onChange={(time_zone) => setChoices({ time_zone })} />
          </span>
        </>
      );
      break;
    case 'wallet_address':
      control = (
        <>
          {need.options.length > 0 && (
            <RadioChoice
              name="q-wallet-address"
              options={need.options.map((a) => ({ value: a, label: a }))}
              value={need.options.find((a) => a.toLowerCase() === walletAddress.toLowerCase())}
              onChange={(walletAddress) => setWallet({ walletAddress })}
            />
          )}
          <CommitInput
            aria-label="Wallet address"
            className="mono question-input"
            value={walletAddress}
            onCommit={(walletAddress) => setWallet({ walletAddress })}
            placeholder="the address the export was made for, then Enter"
          />
        </>
      );
      break;
    case 'token_id':
      return <TokenQuestion need={need} chainId={chainId} />;
    case 'wallet_id':
      control = (
        <>
          <label className="sr-only" htmlFor="imp-wallet">
            Wallet for every row
          </label>
          <WalletSelect id="imp-wallet" />
        </>
      );
      break;
  }
  return (
    <fieldset className="question" data-field={need.field}>
      <legend>{QUESTION[need.field]}</legend>
      <p className="question-reason">{sentence(need.reason)}</p>
      {control}
    </fieldset>
  );
}

/**
 * The token of every row, for files that name none: one of the tokens the service offers (the
 * file's chain's), shown with their symbol and contract, or typed where it offers none.
 */
function TokenQuestion({ need, chainId }: { need: NeededChoice; chainId: string | null }) {
  const tokenId = useImportWizard((s) => s.choices.token_id);
  const setChoices = useImportWizard((s) => s.setChoices);
  const tokens = useQuery(chainId === null || need.options.length === 0 ? null : `tokens:${chainId}`, () =>
    call('catalogue-tokens-list', { chain_id: chainId!, page_size: 100 }),
  );
  const label = (id: string) => {
    const t = tokens.data?.tokens.find((x) => x.token_id === id);
    return t ? `${id} (${t.symbol}${t.contract_address ? ` ${shorten(t.contract_address, 8, 6)}` : ', native'})` : id;
  };
  return (
    <fieldset className="question" data-field="token_id">
      <legend>{QUESTION.token_id}</legend>
      <p className="question-reason">{sentence(need.reason)}</p>
      {need.options.length ? (
        <select
          aria-label="Token of every row"
          value={tokenId ?? ''}
          onChange={(e) => setChoices({ token_id: e.target.value || undefined })}
        >
          <option value="">Choose a token…</option>
          {need.options.map((id) => (
            <option key={id} value={id}>
              {label(id)}
            </option>
          ))}
        </select>
      ) : (
        <CommitInput
          aria-label="Token of every row"
          className="mono question-input"
          value={tokenId ?? ''}
          onCommit={(token) => setChoices({ token_id: token || undefined })}
          placeholder="a token ID of the catalogue, e.g. TRON_USDT, then Enter"
        />
      )}
    </fieldset>
  );
}

/**
 * The choices the import still needs (the service's `needs`, less those answered since), each a
 * question with its reason and a control.
 */
export function Questions({ needs, chainId }: { needs: NeededChoice[]; chainId: string | null }) {
  if (needs.length === 0) return null;
  return (
    <section className="questions" aria-labelledby="questions-title" data-testid="questions">
      <h3 id="questions-title">{needs.length === 1 ? 'One question' : `${needs.length} questions`} before the import</h3>
      {needs.map((n) => (
        <Question key={n.field} need={n} chainId={chainId} />
      ))}
    </section>
  );
}

/** The time zone of times written without one: an offset from UTC (explorers export UTC). */
function OffsetInput({ offset, onChange }: { offset: string; onChange: (offset: string) => void }) {
  const [text, setText] = useState(offset);
  const [prev, setPrev] = useState(offset);
  if (offset !== prev) {
    setPrev(offset);
    setText(offset);
  }
  const valid = UTC_OFFSET.test(text.trim());
  return (
    <>
      <input
        aria-label="UTC offset of times without a zone"
        aria-invalid={!valid}
        title="An offset from UTC, like +08:00 or -05:30"
        className={valid ? 'mono input-offset' : 'mono input-offset input-bad'}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          if (UTC_OFFSET.test(e.target.value.trim()) && e.target.value.trim() !== offset) onChange(e.target.value.trim());
        }}
        spellCheck={false}
      />
      {!valid && <span className="text-bad small">like +08:00</span>}
    </>
  );
}

/** What was read without asking (or answered), on one line; each part can be changed. */
export function ReadAsEditor() {
  const w = useImportWizard();
  const chainName = useChainName();
  const chains = useReference((s) => s.chains.data);
  const readAs = w.detect!.read_as;
  const date = w.mapping.date ?? {};
  const unixTimes = date.format === 'unix_s' || date.format === 'unix_ms';
  const asked = new Set(w.detect!.needs.map((n) => n.field));

  const chainId = w.choices.chain_id ?? readAs.chain_id;
  const family = chains?.find((c) => c.chain_id === chainId)?.chain_identifier;
  const chainOptions = w.chainOptions.length
    ? w.chainOptions
    : (chains ?? []).filter((c) => c.chain_identifier === family && c.enabled && !c.is_testnet).map((c) => c.chain_id);
  const separator = w.choices.decimal_separator ?? readAs.decimal_separator;
  const order = w.choices.date_order ?? readAs.date_order;
  const address = w.walletAddress || readAs.wallet_address;

  return (
    <div className="read-as" role="group" aria-label="Read as" data-testid="read-as">
      <span className="read-as-title">Read as</span>
      {chainId && !asked.has('chain_id') && (
        <label className="read-as-part">
          <span className="muted">chain</span>
          <select aria-label="Read as chain" value={chainId} onChange={(e) => w.setChoices({ chain_id: e.target.value })}>
            {[...new Set([chainId, ...chainOptions])].map((id) => (
              <option key={id} value={id}>
                {chainName(id)}
              </option>
            ))}
          </select>
        </label>
      )}
      {w.choices.token_id && !asked.has('token_id') && (
        <span className="read-as-part">
          <span className="muted">token</span>
          <span className="mono">{w.choices.token_id}</span>
          <button type="button" className="btn btn-ghost btn-small" onClick={() => w.setChoices({ token_id: undefined })}>
            Change
          </button>
        </span>
      )}
      {separator && !asked.has('decimal_separator') && (
        <label className="read-as-part">
          <span className="muted">amounts with a</span>
          <select
            aria-label="Decimal separator"
            value={separator}
            onChange={(e) => w.setChoices({ decimal_separator: e.target.value as Separator })}
          >
            <option value=".">{SEPARATOR_LABEL['.']}</option>
            <option value=",">{SEPARATOR_LABEL[',']}</option>
          </select>
        </label>
      )}
      {order && !asked.has('date_order') && (
        <label className="read-as-part">
          <span className="muted">dates</span>
          <select aria-label="Date order" value={order} onChange={(e) => w.setChoices({ date_order: e.target.value as DateOrder })}>
            {DATE_ORDERS.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </select>
        </label>
      )}
      {!asked.has('time_zone') && (
        <span className="read-as-part">
          <span className="muted">times</span>
          {unixTimes ? (
            <span title="Unix timestamps count from 1970-01-01 in UTC">Unix timestamps, UTC</span>
          ) : readAs.time_zone !== 'UTC' && !readAs.time_zone.startsWith('UTC+') && !readAs.time_zone.startsWith('UTC-') ? (
            <span>in {readAs.time_zone}</span>
          ) : (
            <>
              <span>without a zone are in UTC</span>
              <OffsetInput
                offset={readAs.time_zone === 'UTC' ? '+00:00' : readAs.time_zone.slice(3)}
                onChange={(time_zone) => w.setChoices({ time_zone })}
              />
            </>
          )}
        </span>
      )}
      {address && !asked.has('wallet_address') && (
        <label className="read-as-part">
          <span className="muted">wallet address</span>
          <CommitInput
            aria-label="Wallet address"
            className="mono input-address"
            value={address}
            title={address}
            onCommit={(walletAddress) => w.setWallet({ walletAddress })}
          />
        </label>
      )}
    </div>
  );
}
