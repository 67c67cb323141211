import { PageHeader, Tabs } from '../../components/ui';
import { useRoute } from '../../stores/route';
import { ImportHistory } from './history';
import { ImportWizard } from './import-wizard';
import { TransactionsTab } from './transactions';

type LedgerTab = 'transactions' | 'import' | 'history';

export function LedgerScreen() {
  const sub = useRoute((s) => s.sub);
  const go = useRoute((s) => s.go);
  const tab: LedgerTab = sub === 'import' || sub === 'history' ? sub : 'transactions';
  const show = (k: LedgerTab) => go({ screen: 'ledger', sub: k === 'transactions' ? '' : k });
  return (
    <div className="screen screen-full">
      <PageHeader
        title="Ledger"
        subtitle="The service's own records of wallet activity, imported from ledger files; reconciliation compares the books against these."
        actions={
          tab !== 'import' && (
            <button type="button" className="btn btn-primary" onClick={() => show('import')}>
              Import a ledger file
            </button>
          )
        }
      />
      <Tabs
        label="Ledger"
        tabs={[
          { key: 'transactions', label: 'Transactions' },
          { key: 'import', label: 'Import' },
          { key: 'history', label: 'Import history' },
        ]}
        active={tab}
        onChange={show}
      />
      {tab === 'transactions' && <TransactionsTab onImport={() => show('import')} />}
      {tab === 'import' && <ImportWizard onShowTransactions={() => show('transactions')} />}
      {tab === 'history' && <ImportHistory />}
    </div>
  );
}
