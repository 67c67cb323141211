import { useEffect, useSyncExternalStore, type ReactElement } from 'react';
import { transportKind, windowSession } from './api';
import { Icon, type IconName } from './components/icons';
import { AddressScreen } from './screens/address';
import { BalancesScreen } from './screens/balances';
import { CatalogueScreen } from './screens/catalogue';
import { LedgerScreen } from './screens/ledger';
import { ReconcileScreen } from './screens/reconcile';
import { SettingsScreen } from './screens/settings';
import { TicketsScreen } from './screens/tickets';
import { WalletsScreen } from './screens/wallets';
import { useChanges } from './stores/changes';
import { useReference } from './stores/reference';
import { SCREENS, useRoute, type Screen } from './stores/route';

const NAV: Record<Screen, { label: string; icon: IconName; view: () => ReactElement }> = {
  ledger: { label: 'Ledger', icon: 'ledger', view: () => <LedgerScreen /> },
  reconcile: { label: 'Reconcile', icon: 'reconcile', view: () => <ReconcileScreen /> },
  tickets: { label: 'Tickets', icon: 'tickets', view: () => <TicketsScreen /> },
  balances: { label: 'Balances', icon: 'balances', view: () => <BalancesScreen /> },
  wallets: { label: 'Wallets', icon: 'wallets', view: () => <WalletsScreen /> },
  catalogue: { label: 'Catalogue', icon: 'catalogue', view: () => <CatalogueScreen /> },
  address: { label: 'Address check', icon: 'address', view: () => <AddressScreen /> },
  settings: { label: 'Settings', icon: 'settings', view: () => <SettingsScreen /> },
};

function ApiStatus() {
  const app = useReference((s) => s.app);
  const state = app.data?.api.state;
  const text = app.error
    ? 'service unreachable'
    : !state
      ? 'checking…'
      : state === 'running'
        ? `API on :${app.data?.api.port}`
        : `API ${state}`;
  return (
    <div className="nav-status" title={app.data?.api.error ?? app.error ?? app.data?.api.base_url ?? ''}>
      <span className={`dot dot-${app.error ? 'bad' : state === 'running' ? 'good' : state === 'failed' ? 'bad' : 'muted'}`} />
      <span className="nav-label">{text}</span>
    </div>
  );
}

/** What the sentence of a refused session is about: the heading of the window that has none. */
function noSessionTitle(message: string): string {
  if (message.includes('already used')) return 'This link was already used';
  if (message.includes('not from this run')) return 'This link is from an earlier run of the service';
  if (message.includes('has ended')) return 'This window’s session has ended';
  return 'This window has no session';
}

/**
 * Browser mode, without a session: the link was opened before, is from before the service
 * restarted, or the session ended. The service's own sentence, and how to open the app again; the
 * service itself is running (it answered), so this is never said to be unreachable.
 */
function NoSession({ message }: { message: string }) {
  const [why] = message.replace(/^(code|session): /, '').split('; for a fresh link');
  return (
    <main className="no-session" aria-labelledby="no-session-title">
      <div className="card no-session-card">
        <div className="brand no-session-brand">
          <span className="brand-mark">N</span>
          <div className="brand-name">NPS Reconcile</div>
        </div>
        <h1 id="no-session-title">{noSessionTitle(message)}</h1>
        <p>{why![0]!.toUpperCase() + why!.slice(1)}.</p>
        <p>For a fresh link, run this in a terminal, in the app’s folder, and open the link it prints:</p>
        <pre className="no-session-command">npm run nps -- open</pre>
        <p className="muted small">
          Add <code>--data-dir DIR</code> when the service runs on another data folder.
        </p>
      </div>
    </main>
  );
}

export function App() {
  const problem = useSyncExternalStore(windowSession.subscribe, windowSession.problem);
  if (problem !== undefined) return <NoSession message={problem} />;
  return <Shell />;
}

/** Others' changes as they come: a short note each, in a corner, gone after a few seconds. */
function ChangeNotes() {
  const notes = useChanges((s) => s.notes);
  const dismiss = useChanges((s) => s.dismiss);
  return (
    <div className="change-notes" role="status" aria-live="polite" aria-label="Changes by others">
      {notes.map((n) => (
        <div key={n.id} className="change-note" data-testid="change-note">
          <span>{n.text}</span>
          <button type="button" className="btn btn-small btn-ghost" aria-label="Dismiss the note" onClick={() => dismiss(n.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

function Shell() {
  const screen = useRoute((s) => s.screen);
  const go = useRoute((s) => s.go);
  const { loadChains, loadApp } = useReference.getState();

  useEffect(() => useChanges.getState().start(), []);

  useEffect(() => {
    loadChains();
    loadApp();
    // The status in the nav follows the service: a stopped service shows within seconds.
    const timer = window.setInterval(() => loadApp(true), 10_000);
    return () => window.clearInterval(timer);
  }, [loadChains, loadApp]);

  // Alt+1..8 switches screens from anywhere, as the nav's shortcuts say.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!e.altKey || e.ctrlKey || e.metaKey) return;
      const n = Number(e.key);
      const target = SCREENS[n - 1];
      if (target) {
        e.preventDefault();
        go({ screen: target });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [go]);

  return (
    <div className="shell">
      <nav className="nav" aria-label="Screens">
        <div className="brand">
          <span className="brand-mark">N</span>
          <div className="nav-label">
            <div className="brand-name">NPS Reconcile</div>
            <div className="brand-sub">{transportKind === 'electron' ? 'Desktop' : 'Browser mode'}</div>
          </div>
        </div>
        <ul>
          {SCREENS.map((s, i) => (
            <li key={s}>
              <a
                href={`#/${s}`}
                className={s === screen ? 'nav-item nav-active' : 'nav-item'}
                aria-current={s === screen ? 'page' : undefined}
                title={`${NAV[s].label} (Alt+${i + 1})`}
              >
                <Icon name={NAV[s].icon} size={18} />
                <span className="nav-label">{NAV[s].label}</span>
              </a>
            </li>
          ))}
        </ul>
        <ApiStatus />
      </nav>
      <main className="main" key={screen}>
        {NAV[screen].view()}
      </main>
      <ChangeNotes />
    </div>
  );
}
