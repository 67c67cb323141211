import { once } from 'node:events';
import { createWriteStream, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import Papa from 'papaparse';
import { LEDGER_FIELDS, type LedgerExportPage, type TransactionRecord } from '../../shared/ledger';
import { dataDirOption, parseFlags, withService } from './common';
import { UsageError } from './errors';
import { ledgerUsage } from './usage';
import { requireSubcommand } from './suggest';

/** Records a page: large enough that a million records take 200 calls, small enough to stay a few megabytes. */
const PAGE = 5000;

/** A record as a native CSV row: the fields in LEDGER_FIELDS order, a time as Unix ms digits, "" where not recorded. */
const csvRow = (r: TransactionRecord): string[] => LEDGER_FIELDS.map((f) => (r[f] === null ? '' : String(r[f])));

/** Write, waiting when the stream asks to (a file on a slow disk, a pipe to `head`); `once` leaves no listener behind. */
async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

export async function ledgerCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, {
    ...dataDirOption,
    'wallet-id': { type: 'string' },
    chain: { type: 'string' },
    token: { type: 'string' },
    json: { type: 'boolean', default: false },
    out: { type: 'string' },
  });
  requireSubcommand('ledger', positionals[0], ['export']);
  if (positionals[0] !== 'export' || positionals.length !== 1) throw new UsageError(ledgerUsage);
  // A file is written beside its destination under another name and renamed into place once whole:
  // an export that fails (a full disk, the service gone) leaves no partial file where the ledger should be.
  const target = values.out === undefined ? undefined : resolve(values.out);
  const partial = target && join(dirname(target), `.${basename(target)}.${process.pid}.partial`);
  const out: Writable = partial === undefined ? process.stdout : createWriteStream(partial);
  // A reader that stops early (`| head`) is not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
  const filter = {
    ...(values['wallet-id'] !== undefined ? { wallet_id: values['wallet-id'] } : {}),
    ...(values.chain !== undefined ? { chain_id: values.chain } : {}),
    ...(values.token !== undefined ? { token_id: values.token } : {}),
  };
  let count = 0;
  const failed = (err: unknown) => {
    if (partial !== undefined) {
      out.destroy();
      rmSync(partial, { force: true });
    }
    throw err;
  };
  await withService(values['data-dir'], async (service) => {
    if (values.json) await write(out, '[');
    else await write(out, Papa.unparse([[...LEDGER_FIELDS]], { newline: '\n' }) + '\n');
    for (let after: number | null = 0; after !== null;) {
      const page: LedgerExportPage = await service.invoke('ledger-export', { ...filter, after, limit: PAGE }, { actor: 'cli' });
      if (page.records.length) {
        const text = values.json
          ? page.records.map((r, i) => `${count + i === 0 ? '\n' : ',\n'}  ${JSON.stringify(r)}`).join('')
          : Papa.unparse(page.records.map(csvRow), { newline: '\n' }) + '\n';
        await write(out, text);
        count += page.records.length;
      }
      after = page.next;
    }
    if (values.json) await write(out, count ? '\n]\n' : ']\n');
  }).catch(failed);
  if (partial !== undefined && target !== undefined) {
    out.end();
    await finished(out).catch(failed);
    renameSync(partial, target);
    process.stderr.write(`Exported ${count} records to ${values.out}\n`);
  }
}
