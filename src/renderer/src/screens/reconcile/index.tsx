import { useEffect } from 'react';
import { Empty, PageHeader, Tabs } from '../../components/ui';
import { useReference } from '../../stores/reference';
import { useRoute } from '../../stores/route';
import { RunHistory } from './history';
import { NewRun } from './new-run';
import { useRunWizard } from './store';
import { RunResults } from './results';
import { SavedMappings } from './saved-mappings';

type Tab = 'new' | 'run' | 'history' | 'mappings';

export function ReconcileScreen() {
  const { sub, id } = useRoute();
  const go = useRoute((s) => s.go);
  const loadWallets = useReference((s) => s.loadWallets);
  const tab: Tab = sub === 'run' || sub === 'history' || sub === 'mappings' ? sub : 'new';
  useEffect(() => loadWallets(), [loadWallets]);
  return (
    <div className="screen screen-full">
      <PageHeader
        title="Reconcile"
        subtitle="Check the accountant's books against the ledger both ways: every row is looked up and compared field by field, and the period's ledger records the books never mention are found; every difference is an exception to work."
      />
      <Tabs
        label="Reconcile"
        tabs={[
          { key: 'new', label: 'New run' },
          { key: 'run', label: 'Results' },
          { key: 'history', label: 'History' },
          { key: 'mappings', label: 'Saved mappings' },
        ]}
        active={tab}
        onChange={(k) =>
          go({ screen: 'reconcile', sub: k === 'new' ? '' : k, id: k === 'run' ? id || (useRunWizard.getState().last?.run_id ?? '') : '' })
        }
      />
      {tab === 'new' && <NewRun />}
      {tab === 'run' &&
        (id ? (
          <RunResults key={id} runId={id} />
        ) : (
          <Empty title="No run selected">Run a reconciliation, or pick one from the history.</Empty>
        ))}
      {tab === 'history' && <RunHistory />}
      {tab === 'mappings' && <SavedMappings />}
    </div>
  );
}
