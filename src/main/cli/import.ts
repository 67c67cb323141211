import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Mapping, type ImportReport } from '../../shared/ledger';
import { parseInput } from '../service/errors';
import { dataDirOption, parseFlags, withService } from './common';
import { UsageError } from './errors';
import { importUsage } from './usage';

const SHOWN_REJECTIONS = 100;
const SHOWN_UPDATES = 20;

export function formatReport(r: ImportReport): string {
  const lines = [
    `${r.dry_run ? 'Preview of' : 'Imported'} ${r.file_name} (${r.format}, preset ${r.preset})${r.import_id ? `, import ${r.import_id}` : ''}`,
    `  rows ${r.rows_total}: added ${r.added}, updated ${r.updated}, unchanged ${r.unchanged}, rejected ${r.rejected}  (${r.duration_ms} ms)`,
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
    lines.push('Unknown tokens (add with `nps tokens add CHAIN TOKEN_ID --contract C --symbol S --decimal N`):');
    for (const t of r.unknown_tokens)
      lines.push(
        `  ${t.chain_id} ${t.contract_address} ${t.symbol || '(no symbol)'}${t.name ? ` "${t.name}"` : ''}: ${t.rows} rows, amounts with up to ${t.decimal_hint} decimal places`,
      );
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
