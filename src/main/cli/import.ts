import { actorLabel } from '../../shared/actors';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Mapping, type ImportReport, type ImportUndo } from '../../shared/ledger';
import { parseInput } from '../service/errors';
import { dataDirOption, parseFlags, withService, confirmed } from './common';
import { UsageError } from './errors';
import { importUndoUsage, importUsage } from './usage';

const SHOWN_REJECTIONS = 100;
const SHOWN_UPDATES = 20;

export function formatReport(r: ImportReport): string {
  const lines = [
    `${r.dry_run ? 'Preview of' : 'Imported'} ${r.file_name} (${r.format}, preset ${r.preset})${r.import_id ? `, import ${r.import_id}` : ''}`,
    `  rows ${r.rows_total}: added ${r.added}, updated ${r.updated}, unchanged ${r.unchanged}, rejected ${r.rejected}${r.ignored ? `, ignored ${r.ignored}` : ''}  (${r.duration_ms} ms)`,
  ];
  if (r.wallets_created.length) lines.push(`  new wallets: ${r.wallets_created.join(', ')}`);
  if (r.updates.length) {
    lines.push(`Updated rows${r.updated > SHOWN_UPDATES ? ` (first ${SHOWN_UPDATES} of ${r.updated})` : ''}:`);
    for (const u of r.updates.slice(0, SHOWN_UPDATES))
      lines.push(`  row ${u.row_number}: ${u.transaction_id} changed ${u.fields.join(', ')}`);
  }
  const readAs = [
    r.read_as.chain_id && `chain ${r.read_as.chain_id}`,
    r.read_as.decimal_separator && `decimal ${r.read_as.decimal_separator === '.' ? 'point' : 'comma'}`,
    r.read_as.date_order && r.read_as.date_order.replace('_', '-'),
    `times in ${r.read_as.time_zone}`,
    r.read_as.wallet_address && `wallet address ${r.read_as.wallet_address}`,
  ].filter(Boolean);
  lines.push(`  read as: ${readAs.join(', ')}`);
  if (r.unknown_tokens.length) {
    lines.push(
      "Unknown tokens (add each with `nps tokens add CHAIN --contract C --symbol S --decimal N [--token-id ID]`, N the contract's decimals, or without --symbol and --decimal where the chain's node is set; spam: `nps tokens ignore CHAIN --contract C`):",
    );
    for (const t of r.unknown_tokens)
      lines.push(
        `  ${t.chain_id} ${t.contract_address} ${t.symbol || '(no symbol)'}${t.name ? ` "${t.name}"` : ''}: ${t.rows} rows, amounts with up to ${t.decimal_hint} decimal places (so --decimal is at least ${t.decimal_hint})`,
      );
  }
  if (r.ignored_tokens.length) {
    lines.push('Ignored tokens (spam, `nps tokens ignored`): their rows were skipped:');
    for (const t of r.ignored_tokens) lines.push(`  ${t.chain_id} ${t.contract_address} ${t.symbol || '(no symbol)'}: ${t.rows} rows`);
  }
  if (r.rejections.length) {
    lines.push(`Rejected rows${r.rejected > SHOWN_REJECTIONS ? ` (first ${SHOWN_REJECTIONS} of ${r.rejected}; --json lists all)` : ''}:`);
    for (const x of r.rejections.slice(0, SHOWN_REJECTIONS))
      lines.push(`  row ${x.row_number}, ${x.column}${x.value ? ` = ${JSON.stringify(x.value)}` : ''}: ${x.reason}`);
  }
  lines.push(r.message);
  return lines.join('\n');
}

function readMapping(path: string): Mapping {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`--map: cannot read ${path} as JSON: ${(err as Error).message}`);
  }
  return parseInput(Mapping, json, 'map');
}

function separatorFlag(v: string): '.' | ',' {
  const s = v.trim().toLowerCase();
  if (s === '.' || s === 'point' || s === 'dot') return '.';
  if (s === ',' || s === 'comma') return ',';
  throw new UsageError(`--decimal-separator: ${JSON.stringify(v)} is neither . (point) nor , (comma)`);
}

function dateOrderFlag(v: string): 'day_first' | 'month_first' {
  const s = v.trim().toLowerCase().replace(/[-\s]/g, '_');
  if (s === 'day_first' || s === 'dmy') return 'day_first';
  if (s === 'month_first' || s === 'mdy') return 'month_first';
  throw new UsageError(`--date-order: ${JSON.stringify(v)} is neither day_first nor month_first`);
}

export async function importCommand(args: string[]): Promise<void> {
  if (args[0] === 'undo') return undoCommand(args.slice(1));
  const { values, positionals } = parseFlags(args, {
    ...dataDirOption,
    'wallet-id': { type: 'string' },
    wallet: { type: 'string' },
    'wallet-address': { type: 'string' },
    preset: { type: 'string' },
    map: { type: 'string' },
    chain: { type: 'string' },
    token: { type: 'string' },
    'decimal-separator': { type: 'string' },
    'date-order': { type: 'string' },
    'time-zone': { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  });
  if (positionals.length !== 1) throw new UsageError(`import: give exactly one FILE\n${importUsage}`);
  if (values.preset !== undefined && values.map !== undefined) throw new UsageError('import: give --preset or --map, not both');
  const mapping = values.map === undefined ? undefined : readMapping(values.map);
  const input = {
    source: { path: resolve(positionals[0]!) },
    ...(values.preset !== undefined ? { preset: values.preset } : {}),
    ...(mapping !== undefined ? { mapping } : {}),
    ...(values['wallet-id'] !== undefined ? { wallet_id: values['wallet-id'] } : {}),
    ...(values.wallet !== undefined ? { wallet_name: values.wallet } : {}),
    ...(values['wallet-address'] !== undefined ? { wallet_address: values['wallet-address'] } : {}),
    ...(values.chain !== undefined ? { chain_id: values.chain } : {}),
    ...(values.token !== undefined ? { token_id: values.token } : {}),
    ...(values['decimal-separator'] !== undefined ? { decimal_separator: separatorFlag(values['decimal-separator']) } : {}),
    ...(values['date-order'] !== undefined ? { date_order: dateOrderFlag(values['date-order']) } : {}),
    ...(values['time-zone'] !== undefined ? { time_zone: values['time-zone'] } : {}),
  };
  const tty = process.stderr.isTTY === true && !values.json;
  const report = await withService(values['data-dir'], (service) =>
    service.invoke(values['dry-run'] ? 'ledger-preview' : 'ledger-import', input, {
      actor: 'cli',
      onProgress: tty
        ? (p) => {
            const pct = p.totalBytes ? Math.floor(((p.bytes ?? 0) / p.totalBytes) * 100) : 0;
            process.stderr.write(`\rreading: ${pct}% (${p.done.toLocaleString('en-US')} rows)`);
          }
        : undefined,
    }),
  );
  if (tty) process.stderr.write('\r\x1b[K');
  process.stdout.write((values.json ? JSON.stringify(report, null, 2) : formatReport(report)) + '\n');
  if (report.added + report.updated + report.unchanged === 0) process.exitCode = 1;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const utc = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** What undoing the import changes: said before asking, and again once done. */
export function formatUndo(u: ImportUndo, done: boolean): string {
  const lines = [`${done ? 'Undone' : 'Undo'} import ${u.import_id}: ${u.file_name} (finished ${utc(u.finished_at)})`];
  const said = [
    [plural(u.remove, 'record') + ' it added', 'removed', ''],
    [plural(u.restore, 'record') + ' it updated', 'restored', ' to their earlier version'],
    [plural(u.tickets, 'Pending ticket') + ' on the removed records', 'dismissed', ''],
  ];
  for (const [what, verb, rest] of said) lines.push(done ? `  ${verb} ${what}${rest}` : `  ${what} will be ${verb}${rest}`);
  if (done && u.undone_at !== null) lines.push(`  by ${u.undone_by ? actorLabel(u.undone_by) : 'someone'}, ${utc(u.undone_at)}`);
  return lines.join('\n');
}

async function undoCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, {
    ...dataDirOption,
    yes: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
  });
  if (positionals.length !== 1) throw new UsageError(`import undo: give exactly one IMPORT_ID\n${importUndoUsage}`);
  const importId = positionals[0]!;
  const ask = !values.yes;
  const result = await withService(values['data-dir'], async (service) => {
    const meta = { actor: 'cli' as const };
    const plan = await service.invoke('import-undo-preview', { import_id: importId }, meta);
    if (!values.json || ask) process.stderr.write(formatUndo(plan, false) + '\n');
    if (plan.blocked_by.length) return plan;
    if (ask) {
      // Without a terminal to answer on, only --yes says the user means it.
      if (process.stdin.isTTY !== true)
        throw new UsageError('import undo: no terminal to confirm on; give --yes to undo. Nothing was changed.');
      if (!(await confirmed('Undo this import? [y/N] '))) throw new UsageError('Not undone. Nothing was changed.');
    }
    return service.invoke('import-undo', { import_id: importId }, meta);
  });
  if (result.blocked_by.length) {
    const later = result.blocked_by.map((b) => `${b.file_name} (import ${b.import_id})`).join(', ');
    process.stderr.write(`Cannot be undone: later imports changed its records; undo ${later} first. Nothing was changed.\n`);
    process.exitCode = 1;
    return;
  }
  process.stdout.write((values.json ? JSON.stringify(result, null, 2) : formatUndo(result, true)) + '\n');
}
