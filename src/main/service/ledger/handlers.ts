import { ErrorCodes } from '../../../shared/errors';
import type { LedgerImportRequest, ledgerContract } from '../../../shared/ledger';
import type { CallMeta, HandlersOf, ServiceContext } from '../context';
import { ServiceError } from '../errors';
import { detectLedger, runImport, type ImportOptions } from './import';
import { listPresets } from './presets';
import { exportLedgerFile } from './export-file';
import { exportPage, getImport, getTransaction, listImports, listTransactions, sumTransactions } from './repository';
import { previewUndo, undoImport } from './undo';
import { walletForImport } from './wallets';
import { updateWallet } from './wallets-repository';

/** The import's options from its request (detect, preview and import take the same), and the name of a wallet it creates. */
function importOptions(
  ctx: ServiceContext,
  input: LedgerImportRequest,
  dryRun: boolean,
  onProgress?: CallMeta['onProgress'],
): ImportOptions & { newName?: string } {
  const wallet = walletForImport(ctx, input.wallet_id, input.wallet_name);
  return {
    source: input.source,
    preset: input.preset,
    mapping: input.mapping,
    walletId: wallet.walletId,
    newName: wallet.newName,
    walletAddress: input.wallet_address,
    choices: {
      chain_id: input.chain_id,
      token_id: input.token_id,
      decimal_separator: input.decimal_separator,
      date_order: input.date_order,
      time_zone: input.time_zone,
    },
    dryRun,
    onProgress,
  };
}

/**
 * Who acted, as events record it: tickets/rules.ts's actorOf, passed in by the handler map (the
 * ledger sits below the tickets and the app's named user, and imports neither).
 */
export type ActorOf = (ctx: ServiceContext, meta: CallMeta) => string;

export function ledgerHandlers(ctx: ServiceContext, actorOf: ActorOf): HandlersOf<typeof ledgerContract> {
  return {
    'ledger-detect': (input) => detectLedger(ctx, importOptions(ctx, input, true)),
    'ledger-presets-list': () => listPresets(),
    'ledger-preview': (input, meta) => runImport(ctx, importOptions(ctx, input, true, meta.onProgress)),
    'ledger-import': async (input, meta) => {
      const opts = importOptions(ctx, input, false, meta.onProgress);
      const report = await runImport(ctx, opts);
      // A wallet named by the request that did not exist: the import created it with its rows.
      if (opts.newName !== undefined && report.import_id !== null) updateWallet(ctx.db, opts.walletId!, { name: opts.newName }, ctx.now());
      ctx.log.info({
        event: 'import',
        by: meta.actor,
        import_id: report.import_id,
        file: report.file_name,
        preset: report.preset,
        rows: report.rows_total,
        added: report.added,
        updated: report.updated,
        unchanged: report.unchanged,
        rejected: report.rejected,
        ms: report.duration_ms,
      });
      return report;
    },
    'transactions-list': (query) => listTransactions(ctx.db, query),
    'transaction-get': ({ transaction_id }) => {
      const record = getTransaction(ctx.db, transaction_id.toLowerCase());
      if (!record) throw new ServiceError(ErrorCodes.INVALID_PARAM, `transaction_id: no record ${JSON.stringify(transaction_id)}`);
      return record;
    },
    'ledger-export': (query) => exportPage(ctx.db, query),
    'transactions-totals': (query) => sumTransactions(ctx.db, query),
    'ledger-export-file': (query) => exportLedgerFile(ctx.db, query, ctx.now()),
    'imports-list': ({ page, page_size }) => listImports(ctx.db, page, page_size),
    'import-get': ({ import_id }) => {
      const detail = getImport(ctx.db, import_id);
      if (!detail) throw new ServiceError(ErrorCodes.INVALID_PARAM, `import_id: no import ${JSON.stringify(import_id)}`);
      return detail;
    },
    'import-undo-preview': ({ import_id }) => previewUndo(ctx, import_id),
    'import-undo': ({ import_id }, meta) => {
      const done = undoImport(ctx, import_id, actorOf(ctx, meta));
      ctx.log.info({
        event: 'import-undo',
        by: done.undone_by,
        import_id: done.import_id,
        file: done.file_name,
        removed: done.remove,
        restored: done.restore,
        tickets_dismissed: done.tickets,
      });
      return done;
    },
  };
}
