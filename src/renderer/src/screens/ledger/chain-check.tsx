import { useEffect, useState } from 'react';
import type { NodeInfo, OnchainCheck, OnchainItem, OnchainOutcome } from '../../../../shared/onchain';
import { call, errorText } from '../../api';
import { ExplorerLink } from '../../components/links';
import { Dialog, Empty, ErrorBox, Loading, Pager, ProgressBar, Stat } from '../../components/ui';
import { WalletName } from '../../components/wallet-name';
import { formatCount, formatTime } from '../../lib/format';
import { useQuery } from '../../lib/use-query';
import { useChangeKey } from '../../stores/changes';
import { useRoute } from '../../stores/route';
import { useQueue } from '../tickets/filters';
import './chain-check.css';

/*
 * "Check against the chain": the records the Ledger's filters select (their wallet and created
 * days), each asked of its chain's node. The check runs in the service, in the background: this
 * dialog only starts it, follows it, and can stop it; closing the dialog leaves it running, and
 * the window and the API answer meanwhile.
 */

export interface CheckScope {
  wallet_id?: string;
  /** UTC days, YYYY-MM-DD, both inclusive. */
  from?: string;
  to?: string;
}

const OUTCOMES: { key: OnchainOutcome; label: string; tone: string }[] = [
  { key: 'agrees', label: 'Agree', tone: 'good' },
  { key: 'differs', label: 'Differ', tone: 'bad' },
  { key: 'pending', label: 'Pending', tone: 'warn' },
  { key: 'not_found', label: 'Not on the chain', tone: 'bad' },
  { key: 'unchecked', label: 'Unchecked', tone: 'muted' },
];
const PAGE = 50;

function ScopeText({ scope }: { scope: CheckScope }) {
  return (
    <>
      the records of {scope.wallet_id ? <WalletName id={scope.wallet_id} /> : 'every wallet'}
      {scope.from || scope.to ? `, created ${scope.from ? `from ${scope.from}` : ''}${scope.to ? ` to ${scope.to}` : ''} (UTC)` : ''} that
      have a hash
    </>
  );
}

/** Which chains a check can ask, and what it sends them. */
function Nodes({ nodes }: { nodes: NodeInfo[] }) {
  const set = nodes.filter((n) => n.configured);
  return (
    <div className="chain-check-nodes">
      <p>
        Each record&apos;s <strong>transaction hash</strong> goes to the node set for its chain, and its block and the chain&apos;s newest
        block are asked for; nothing else leaves the app (no amounts, no names, no wallets). Records of a chain without a node are marked
        unchecked.
      </p>
      <p className="muted small" data-testid="chain-check-nodes">
        Nodes: {set.length ? set.map((n) => `${n.chain_id} (${n.url})`).join(', ') : 'none set'}.
      </p>
    </div>
  );
}

function Items({ check, outcome }: { check: OnchainCheck; outcome: OnchainOutcome | undefined }) {
  const [page, setPage] = useState(1);
  // What needs a look, unless an outcome is picked: everything that does not agree.
  const q = useQuery(`${check.check_id}:${check.done}:${outcome ?? 'notable'}:${page}`, () =>
    call('onchain-check-items', { check_id: check.check_id, ...(outcome ? { outcome } : { notable: true }), page, page_size: PAGE }),
  );
  if (q.error) return <ErrorBox message={q.error} onRetry={q.reload} title="Could not load the findings" />;
  if (!q.data) return <Loading what="the findings" />;
  if (q.data.total === 0) return <p className="muted">{outcome ? 'None.' : 'Every record checked agrees with the chain.'}</p>;
  return (
    <>
      <table className="table chain-check-items" aria-label="Findings">
        <thead>
          <tr>
            <th scope="col">Outcome</th>
            <th scope="col">Transaction</th>
            <th scope="col">Token</th>
            <th scope="col">What the chain says</th>
          </tr>
        </thead>
        <tbody>
          {q.data.list.map((i: OnchainItem) => (
            <tr key={i.transaction_id} className={`outcome-${i.outcome}`}>
              <td>
                <span className={`kind kind-outcome-${i.outcome}`}>{OUTCOMES.find((o) => o.key === i.outcome)!.label}</span>
                {i.fields.length > 0 && <span className="muted small"> {i.fields.join(', ')}</span>}
              </td>
              <td>
                <ExplorerLink chainId={i.chain_id} kind="tx" value={i.hash} />
              </td>
              <td className="mono">{i.token_id}</td>
              <td className="small">{i.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <Pager page={page} pageSize={PAGE} total={q.data.total} onPage={setPage} busy={q.loading} />
    </>
  );
}

export function ChainCheckDialog({ scope, onClose }: { scope: CheckScope; onClose: () => void }) {
  const go = useRoute((s) => s.go);
  // Others' changes: a node set or cleared, a chain added; a check started or ended elsewhere.
  const nodesChanged = useChangeKey('settings', 'catalogue');
  const othersChecked = useChangeKey('checks');
  const nodes = useQuery(`onchain-nodes:${nodesChanged}`, () => call('onchain-nodes-list', {}));
  const latest = useQuery(`onchain-latest:${othersChecked}`, () => call('onchain-check-latest', {}));
  const [check, setCheck] = useState<OnchainCheck>();
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<OnchainOutcome>();
  const [openedAt] = useState(othersChecked);
  const othersSince = othersChecked !== openedAt;
  // A check already running (started here before, elsewhere, or from the command line) is followed,
  // not started again; once another's check started or ended while this is open, the newest is shown.
  const mine = check && (check.state === 'running' || !othersSince || check.check_id === latest.data?.check_id) ? check : undefined;
  const shown = mine ?? (latest.data && (latest.data.state === 'running' || othersSince) ? latest.data : undefined);
  const running = shown?.state === 'running';

  useEffect(() => {
    if (!running || !shown) return;
    const timer = window.setInterval(() => {
      call('onchain-check-get', { check_id: shown.check_id }).then(setCheck, (err: unknown) => setError(errorText(err)));
    }, 400);
    return () => window.clearInterval(timer);
  }, [running, shown?.check_id]); // eslint-disable-line react-hooks/exhaustive-deps

  const start = async (restart = false) => {
    setBusy(true);
    setError(undefined);
    try {
      setCheck(
        await call('onchain-check-start', {
          ...(scope.wallet_id ? { wallet_id: scope.wallet_id } : {}),
          ...(scope.from ? { from: scope.from } : {}),
          ...(scope.to ? { to: scope.to } : {}),
          restart,
        }),
      );
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const cancel = async () => {
    if (!shown) return;
    setBusy(true);
    try {
      setCheck(await call('onchain-check-cancel', { check_id: shown.check_id }));
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  const openExceptions = () => {
    useQueue.getState().clearFilters();
    useQueue.getState().setFilters({ kind: 'onchain', status: 'Pending' });
    onClose();
    go({ screen: 'tickets' });
  };

  const stopped = shown && ['cancelled', 'interrupted', 'failed'].includes(shown.state);
  const anyNode = (nodes.data ?? []).some((n) => n.configured);
  const footer = (
    <>
      <button type="button" className="btn btn-ghost" onClick={onClose}>
        {running ? 'Close (the check goes on)' : 'Close'}
      </button>
      {running ? (
        <button type="button" className="btn btn-danger" onClick={() => void cancel()} disabled={busy}>
          {busy ? 'Stopping…' : 'Cancel check'}
        </button>
      ) : stopped ? (
        <>
          <button type="button" className="btn" onClick={() => void start(true)} disabled={busy}>
            Start over
          </button>
          <button type="button" className="btn btn-primary" onClick={() => void start()} disabled={busy}>
            Resume
          </button>
        </>
      ) : (
        <button type="button" className="btn btn-primary" onClick={() => void start()} disabled={busy || !anyNode}>
          {shown ? 'Check again' : 'Start the check'}
        </button>
      )}
    </>
  );

  return (
    <Dialog title="Check against the chain" onClose={onClose} footer={footer} wide>
      <p>
        Asks the chain itself about <ScopeText scope={scope} />: whether each agrees (amount, recipient, token, outcome, fee), differs, is
        not yet final (fewer confirmations than the chain&apos;s threshold) or is not on the chain at all. Differences and missing
        transactions become exceptions of kind &ldquo;Chain disagrees&rdquo;.
      </p>
      {nodes.data && <Nodes nodes={nodes.data} />}
      {nodes.data && !anyNode && (
        <Empty title="No chain has a node yet">
          <button
            type="button"
            className="btn"
            onClick={() => {
              onClose();
              go({ screen: 'catalogue' });
            }}
          >
            Set a node in the Catalogue
          </button>
        </Empty>
      )}
      {error && (
        <p className="error-text" role="alert">
          {error}
        </p>
      )}
      {shown && (
        <section className="chain-check-progress" aria-label="The check" data-testid="chain-check">
          <p data-testid="chain-check-state">
            {running
              ? `Checking ${formatCount(shown.done)} of ${formatCount(shown.total)} records…`
              : shown.state === 'done'
                ? `Checked ${formatCount(shown.total)} records, ${formatTime(shown.finished_at)} UTC.`
                : `Stopped at ${formatCount(shown.done)} of ${formatCount(shown.total)} (${shown.state}${shown.error ? `: ${shown.error}` : ''}): resume to go on from there.`}
            {shown.retries > 0 && (
              <span className="muted">
                {' '}
                The nodes asked to slow down or failed {formatCount(shown.retries)} times; each was asked again.
              </span>
            )}
            {shown.without_hash > 0 && (
              <span className="muted"> {formatCount(shown.without_hash)} records without a hash cannot be asked about.</span>
            )}
          </p>
          <ProgressBar done={shown.done} total={shown.total || undefined} label="Records checked" />
          <div className="stats">
            {OUTCOMES.map((o) => (
              <Stat
                key={o.key}
                label={o.label}
                value={shown.summary[o.key]}
                tone={o.tone}
                active={outcome === o.key}
                onClick={() => setOutcome(outcome === o.key ? undefined : o.key)}
              />
            ))}
          </div>
          {!running && <Items check={shown} outcome={outcome} />}
          {shown.summary.differs + shown.summary.not_found > 0 && (
            <button type="button" className="btn btn-small" onClick={openExceptions}>
              Open the exceptions ({formatCount(shown.summary.differs + shown.summary.not_found)})
            </button>
          )}
        </section>
      )}
    </Dialog>
  );
}
