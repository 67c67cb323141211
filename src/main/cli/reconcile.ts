import { statSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { BooksMapping, BooksRunResult, SavedMapping } from '../../shared/reconcile';
import { REPORT_GROUP_LABELS, REPORT_GROUPS, type ReconcileReport } from '../../shared/reports';
import { ServiceError } from '../service/errors';
import { dataDirOption, parseFlags, withService } from './common';
import { UsageError } from './errors';
import { readMappingFile } from './mappings';
import type { Invoker } from './running';
import { reconcileUsage } from './usage';
import { walletId } from './wallets';

/*
 * `nps reconcile BOOKS`: the books against the ledger, both ways, for a wallet (or all) and a
 * period, through the same service call as the desktop app. Exit status: 0 when every claim
 * matched and the ledger holds nothing the books miss, 1 when there are exceptions to work.
 */

const cli = { actor: 'cli' as const };

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

/**
 * The mapping a run reads the books with: --map's file (JSON) or saved mapping (its name or ID);
 * without --map, the mapping saved for this layout (the wallet's first, else the last used), else
 * the first guess from the header.
 */
async function mappingFor(
  service: Invoker,
  map: string | undefined,
  source: { path: string },
  wallet: string | undefined,
): Promise<{ mapping: BooksMapping; saved?: SavedMapping }> {
  if (map !== undefined && isFile(map)) return { mapping: readMappingFile(map) };
  if (map !== undefined) {
    const { headers } = await service.invoke('reconcile-books-detect', { source }, cli);
    try {
      const saved = await service.invoke('books-mapping-get', { mapping: map, headers }, cli);
      return { mapping: saved.mapping, saved };
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      const names = (await service.invoke('books-mappings-list', {}, cli)).map((m) => JSON.stringify(m.name));
      throw new UsageError(
        `--map: ${JSON.stringify(map)} is neither a file nor a saved mapping (${names.length ? `saved: ${names.join(', ')}` : 'none is saved yet'})`,
      );
    }
  }
  const detected = await service.invoke('reconcile-books-detect', { source, ...(wallet !== undefined ? { wallet_id: wallet } : {}) }, cli);
  return detected.saved ? { mapping: detected.saved.mapping, saved: detected.saved } : { mapping: detected.suggested };
}

const day = (ms: number | null): string => (ms === null ? 'open' : new Date(ms).toISOString().replace('.000Z', 'Z'));

function describe(run: BooksRunResult, report: ReconcileReport): string {
  const wallet = report.wallets[0];
  const scope = wallet ? `wallet ${wallet.name ? `${wallet.name} (${wallet.wallet_id})` : wallet.wallet_id}` : 'every wallet';
  const period = run.two_way ? `, ${day(run.period_from)} to ${day(run.period_to)}` : ' (one way: claims only)';
  const s = report.summary;
  const line = (name: string, n: number) => `  ${name.padEnd(16)}${n}`;
  const lines = [
    `Reconciled ${report.books} against ${scope}${period}`,
    ...REPORT_GROUPS.filter((g) => run.two_way || (g !== 'not_in_books' && g !== 'duplicates')).map((g) =>
      line(REPORT_GROUP_LABELS[g], s[g]),
    ),
    ...(run.rejected_count > 0 ? [line('Unreadable rows', run.rejected_count)] : []),
  ];
  for (const r of run.rejected.slice(0, 5)) lines.push(`    row ${r.row}: ${r.field}: ${r.reason}`);
  if (run.rejected_count > 5) lines.push(`    … ${run.rejected_count - 5} more (see the run in the app)`);
  lines.push(
    report.open_exceptions > 0
      ? `${report.open_exceptions} exceptions to work (the app's Tickets screen). Run ${run.run_id}.`
      : `Nothing to work. Run ${run.run_id}.`,
  );
  return lines.join('\n');
}

export async function reconcileCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, {
    ...dataDirOption,
    'wallet-id': { type: 'string' },
    wallet: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    'time-zone': { type: 'string' },
    map: { type: 'string' },
    'save-map': { type: 'string' },
    'amount-delta': { type: 'string' },
    'time-delta': { type: 'string' },
    'one-way': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  });
  if (positionals.length !== 1) throw new UsageError(`reconcile: give exactly one BOOKS file\n${reconcileUsage}`);
  if (values.wallet !== undefined && values['wallet-id'] !== undefined)
    throw new UsageError('reconcile: give --wallet or --wallet-id, not both');
  const timeDelta = values['time-delta'] === undefined ? undefined : Number(values['time-delta']);
  if (timeDelta !== undefined && !(Number.isSafeInteger(timeDelta) && timeDelta >= 0)) {
    throw new UsageError(`--time-delta: ${JSON.stringify(values['time-delta'])} is not a whole number of seconds >= 0`);
  }
  const out = values.out === undefined ? undefined : resolve(values.out);
  const format =
    out === undefined ? undefined : out.toLowerCase().endsWith('.xlsx') ? 'xlsx' : out.toLowerCase().endsWith('.csv') ? 'csv' : null;
  if (format === null) throw new UsageError(`--out: ${JSON.stringify(values.out)} must end in .xlsx (the auditor's workbook) or .csv`);
  const source = { path: resolve(positionals[0]!) };
  const { run, report, saved } = await withService(values['data-dir'], async (service) => {
    const wallet = values.wallet !== undefined ? await walletId(service, values.wallet) : values['wallet-id'];
    const { mapping, saved } = await mappingFor(service, values.map, source, wallet);
    // A saved mapping's tolerances and time type, unless the flags say otherwise.
    const kept = saved?.options ?? {};
    const amountDelta = values['amount-delta'] ?? kept.amount_delta;
    const time = timeDelta ?? kept.time_delta;
    const run = await service
      .invoke(
        'reconcile-books-run',
        {
          source,
          mapping,
          two_way: !values['one-way'],
          ...(wallet !== undefined ? { wallet_id: wallet } : {}),
          ...(values.from !== undefined ? { from: values.from } : {}),
          ...(values.to !== undefined ? { to: values.to } : {}),
          ...(values['time-zone'] !== undefined ? { time_zone: values['time-zone'] } : {}),
          ...(amountDelta !== undefined ? { amount_delta: amountDelta } : {}),
          ...(time !== undefined ? { time_delta: time } : {}),
          ...(kept.time_type !== undefined ? { time_type: kept.time_type } : {}),
          ...(values['save-map'] !== undefined ? { save_mapping_as: values['save-map'] } : {}),
        },
        cli,
      )
      .catch((err: unknown) => {
        // A saved mapping the file does not fit: say which was used, and how to read with another.
        if (saved && err instanceof ServiceError && /^mapping\./.test(err.message))
          throw new ServiceError(
            err.code,
            `${err.message} (the saved mapping ${JSON.stringify(saved.name)} was used: give --map to read the books with another)`,
          );
        throw err;
      });
    // The printed summary needs the counts only; --json prints every group's items.
    const report = await service.invoke('run-report', { run_id: run.run_id, ...(values.json ? {} : { limit: 1 }) }, cli);
    if (out !== undefined && format !== undefined) {
      const file = await service.invoke('run-report-file', { run_id: run.run_id, format }, cli);
      writeFileSync(out, Buffer.from(file.base64, 'base64'));
    }
    return { run, report, saved };
  });
  if (saved)
    process.stderr.write(
      `Mapping: the saved mapping ${JSON.stringify(saved.name)} (npm run nps -- mappings show ${JSON.stringify(saved.name)})\n`,
    );
  if (values['save-map'] !== undefined && run.saved_mapping)
    process.stderr.write(`Mapping saved as ${JSON.stringify(run.saved_mapping.name)}\n`);
  if (out !== undefined) process.stderr.write(`Report written to ${out}\n`);
  process.stdout.write((values.json ? JSON.stringify(report, null, 2) : describe(run, report)) + '\n');
  const s = report.summary;
  if (s.mismatched + s.not_in_ledger + s.not_in_books + s.duplicates + run.rejected_count > 0) process.exitCode = 1;
}
