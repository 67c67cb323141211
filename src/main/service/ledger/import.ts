import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { ErrorCodes } from '../../../shared/errors';
import {
  REQUIRED_FIELDS,
  type ImportReport,
  type LedgerDetectResult,
  type LedgerSource,
  type Mapping,
  type Rejection,
} from '../../../shared/ledger';
import type { CallMeta, ServiceContext } from '../context';
import { ServiceError } from '../errors';
import { detectPreset, findHeader, guessMapping, presetByName, PRESETS } from './presets';
import { loadCatalogue } from './repository';
import { compileRowReader, FileProblem, RowProblem, unmappedColumns, type RowReader } from './rows';
import { detach } from './values';
import { FileError, NOT_A_CELL, NOT_AN_OBJECT, openSource, sniff, streamRows, type OpenedSource, type Sniffed } from './source';
import type { RowWriter } from '../engine/index';
import type { WriterStats } from './import-repository';

export interface ImportOptions {
  source: LedgerSource;
  preset?: string;
  mapping?: Mapping;
  walletId?: string;
  walletAddress?: string;
  dryRun: boolean;
  onProgress?: CallMeta['onProgress'];
  /** From this file size on the rows are written on a worker thread (tests lower it). */
  workerMinBytes?: number;
  /** From this many rows on, the ledger's indexes are rebuilt after the load (tests lower it). */
  rebuildMinRows?: number;
}

const fileFailure = (name: string, reason: string) =>
  new ServiceError(ErrorCodes.INVALID_PARAM, `${name}: ${reason}; nothing was imported`);

function open(source: LedgerSource): { opened: OpenedSource; sniffed: Sniffed } {
  const name = 'path' in source ? source.path : source.name;
  try {
    const opened = openSource(source);
    return { opened, sniffed: sniff(opened) };
  } catch (err) {
    if (err instanceof FileError) throw fileFailure(name, err.message);
    throw err;
  }
}

/** Why a header fits no preset, naming what the native format misses. */
function noPresetReason(headers: string[]): string {
  const missing = REQUIRED_FIELDS.filter((f) => f !== 'wallet_id' && findHeader(headers, f) === undefined);
  const shown = headers.slice(0, 12).map((h) => JSON.stringify(h.trim()));
  return (
    `the header fits no known format: the native format needs the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}` +
    ` (found ${shown.join(', ')}${headers.length > 12 ? ', ...' : ''}); for another export give a preset (${PRESETS.map((p) => p.name).join(', ')}) or a column mapping`
  );
}

function resolveMapping(
  opts: { preset?: string; mapping?: Mapping },
  headers: string[],
  fileName: string,
): { preset: string; mapping: Mapping } {
  if (opts.mapping) return { preset: 'custom', mapping: opts.mapping };
  if (opts.preset !== undefined) {
    const preset = presetByName(opts.preset);
    if (!preset)
      throw new ServiceError(
        ErrorCodes.INVALID_PARAM,
        `preset: unknown preset ${JSON.stringify(opts.preset)}; known: ${PRESETS.map((p) => p.name).join(', ')}`,
      );
    return { preset: preset.name, mapping: preset.mappingFor(headers) };
  }
  const detected = detectPreset(headers);
  if (!detected) throw fileFailure(fileName, noPresetReason(headers));
  return { preset: detected.name, mapping: detected.mappingFor(headers) };
}

/**
 * The export's own address, when the mapping needs one to tell deposits from withdrawals and none
 * was given: the one address that is the sender or the recipient on every sample row.
 */
function inferWalletAddress(mapping: Mapping, headers: string[], sample: string[][]): string | undefined {
  if (mapping.constants.wallet_address || mapping.columns.type || mapping.constants.type) return undefined;
  const fromCol = mapping.columns.from ? findHeader(headers, mapping.columns.from) : undefined;
  const toCol = mapping.columns.to ? findHeader(headers, mapping.columns.to) : undefined;
  if (fromCol === undefined || toCol === undefined || sample.length === 0) return undefined;
  const fi = headers.indexOf(fromCol);
  const ti = headers.indexOf(toCol);
  let candidates: Map<string, string> | undefined;
  for (const row of sample) {
    const here = new Map<string, string>();
    for (const a of [row[fi]?.trim() ?? '', row[ti]?.trim() ?? '']) if (a) here.set(a.toLowerCase(), a);
    candidates = candidates === undefined ? here : new Map([...candidates].filter(([k]) => here.has(k)));
  }
  return candidates?.size === 1 ? [...candidates.values()][0] : undefined;
}

function compile(
  ctx: ServiceContext,
  sniffed: Sniffed,
  mapping: Mapping,
  walletId: string | undefined,
  walletAddress: string | undefined,
  fileName: string,
) {
  try {
    return compileRowReader({ headers: sniffed.headers, mapping, catalogue: loadCatalogue(ctx.db), walletId, walletAddress });
  } catch (err) {
    if (err instanceof FileProblem) throw fileFailure(fileName, err.message);
    throw err;
  }
}

export function detectLedger(source: LedgerSource): LedgerDetectResult {
  const { opened, sniffed } = open(source);
  const preset = detectPreset(sniffed.headers);
  const mapping = preset ? preset.mappingFor(sniffed.headers) : guessMapping(sniffed.headers);
  const address = inferWalletAddress(mapping, sniffed.headers, sniffed.sample);
  if (address !== undefined) mapping.constants.wallet_address = address;
  return {
    file_name: opened.name,
    file_size: opened.size,
    format: sniffed.format,
    headers: sniffed.headers,
    sample: sniffed.sample.map((row) => Object.fromEntries(sniffed.headers.map((h, i) => [h, row[i] ?? '']))),
    preset: preset?.name ?? null,
    mapping,
    unmapped: unmappedColumns(sniffed.headers, mapping),
    row_estimate: sniffed.rowEstimate,
  };
}

interface Staged {
  rowsTotal: number;
  rejections: Rejection[];
  sha256: string;
}

/**
 * Characters of valid rows handed to the writer at a time: the batch's text must stay below V8's
 * large-object size (128 KiB, reached at 64 Ki characters if one is outside Latin-1), or each
 * one lives until a full collection.
 */
const BATCH_CHARS = 60 * 1024;

/**
 * Valid rows as lines `values... \t row_number \n` (values contain no tab or line break), joined
 * into one text per batch: each line dies young, and the batch's text goes to the writer as soon
 * as it is made.
 */
class Batcher {
  private lines: string[] = [];
  private chars = 0;

  constructor(private readonly writer: RowWriter) {}

  add(rowNumber: number, values: string[]): void {
    values.push(String(rowNumber));
    const line = values.join('\t');
    this.lines.push(line);
    this.chars += line.length + 1;
    if (this.chars >= BATCH_CHARS) this.flush();
  }

  flush(): void {
    if (this.lines.length === 0) return;
    this.lines.push('');
    this.writer.add(this.lines.join('\n'));
    this.lines = [];
    this.chars = 0;
  }
}

/** Read every row, check it, and hand the valid ones to the writer. */
async function stageRows(
  opened: OpenedSource,
  sniffed: Sniffed,
  read: RowReader,
  staging: Batcher,
  writer: RowWriter,
  onProgress: ImportOptions['onProgress'],
): Promise<Staged> {
  const width = sniffed.headers.length;
  const isJson = sniffed.format === 'json';
  const rejections: Rejection[] = [];
  let rowsTotal = 0;
  let file: { sha256: string; bytes: number };
  try {
    file = await streamRows(opened, sniffed, {
      rows: (batch, first) => {
        for (let k = 0; k < batch.length; k++) {
          const cells = batch[k]!;
          const rowNumber = first + k;
          // Blank lines, and the rows of empty cells spreadsheets leave at the end, are not rows.
          if (cells[0]!.trim() === '' && cells.every((c) => c.trim() === '')) continue;
          rowsTotal++;
          if (isJson) {
            if (cells[0] === NOT_AN_OBJECT) {
              rejections.push({ row_number: rowNumber, column: '(row)', reason: 'is not a JSON object' });
              continue;
            }
            const bad = cells.indexOf(NOT_A_CELL);
            if (bad >= 0) {
              rejections.push({
                row_number: rowNumber,
                column: sniffed.headers[bad]!,
                reason: 'is an object or array, not a single value',
              });
              continue;
            }
          } else if (cells.length !== width) {
            rejections.push({ row_number: rowNumber, column: '(row)', reason: `has ${cells.length} cells; the header has ${width}` });
            continue;
          }
          const out = read(cells);
          if (out instanceof RowProblem) {
            rejections.push({ row_number: rowNumber, column: out.column, reason: detach(out.reason) });
            continue;
          }
          staging.add(rowNumber, out);
        }
      },
      progress: (bytes) => onProgress?.({ done: rowsTotal, bytes, totalBytes: opened.size }),
      wait: () => {
        staging.flush();
        return writer.wait();
      },
    });
    staging.flush();
  } catch (err) {
    if (err instanceof FileError) throw fileFailure(opened.name, err.message);
    throw err;
  }
  return { rowsTotal, rejections, sha256: file.sha256 };
}

function summaryMessage(r: Omit<ImportReport, 'message'>, ignored: string[]): string {
  const parts: string[] = [];
  if (r.rows_total === 0) parts.push('The file has no data rows; nothing was imported.');
  else if (r.added + r.updated + r.unchanged === 0) parts.push(`None of the ${r.rows_total} rows is valid; nothing was imported.`);
  else {
    const would = r.dry_run ? 'would be ' : '';
    parts.push(
      `${r.rows_total} rows: ${r.added} ${would}added, ${r.updated} ${would}updated, ${r.unchanged} unchanged, ${r.rejected} rejected.`,
    );
    if (r.dry_run) parts.push('Preview only: nothing was written.');
  }
  if (r.rejected > 0) parts.push('Row numbers count data rows from 1 (the header row is not counted).');
  if (r.updated > r.updates.length) parts.push(`The first ${r.updates.length} updates are listed.`);
  if (ignored.length) parts.push(`Columns not read: ${ignored.join(', ')}.`);
  return parts.join(' ');
}

/**
 * Import (or preview) a ledger file. Rows are read as a stream and checked one by one; the valid
 * ones are staged (in memory, or in temporary files when many), then applied in one synchronous
 * SQLite transaction, so the store changes all at once or not at all, and no other call of the
 * service runs inside the transaction or sees half an import.
 */
export async function runImport(ctx: ServiceContext, opts: ImportOptions): Promise<ImportReport> {
  const t0 = performance.now();
  const startedAt = ctx.now();
  const { opened, sniffed } = open(opts.source);
  const fileName = opened.name;
  const { preset, mapping } = resolveMapping(opts, sniffed.headers, fileName);
  const walletAddress = opts.walletAddress ?? inferWalletAddress(mapping, sniffed.headers, sniffed.sample);
  const read = compile(ctx, sniffed, mapping, opts.walletId, walletAddress, fileName);

  const importId = randomUUID();
  const idColumn = mapping.columns.transaction_id ?? 'transaction_id';
  const writerOpts = { importId, now: ctx.now(), idColumn, rebuildMinRows: opts.rebuildMinRows };
  // The engine decides where the rows are written (a large file: on a thread of its own, while it
  // is read); the rows the file is expected to bring decide whether the secondary indexes are
  // rebuilt rather than kept up to date.
  const writer = await ctx.engine.importWriter({
    ...writerOpts,
    bytes: opened.size,
    threadMinBytes: opts.workerMinBytes,
    expectedRows: sniffed.rowEstimate ?? 0,
  });
  try {
    return await writeRows(ctx, opts, { opened, sniffed, read, writer, importId, startedAt, t0, preset, mapping });
  } finally {
    // Whatever failed on the way, the store is left as it was (after complete, this does nothing).
    await writer.abort();
  }
}

interface Prepared {
  opened: OpenedSource;
  sniffed: Sniffed;
  read: RowReader;
  writer: RowWriter;
  importId: string;
  startedAt: number;
  t0: number;
  preset: string;
  mapping: Mapping;
}

async function writeRows(
  ctx: ServiceContext,
  opts: ImportOptions,
  { opened, sniffed, read, writer, importId, startedAt, t0, preset, mapping }: Prepared,
): Promise<ImportReport> {
  const fileName = opened.name;
  const staging = new Batcher(writer);
  const { rowsTotal, rejections, sha256 } = await stageRows(opened, sniffed, read, staging, writer, opts.onProgress);
  opts.onProgress?.({ done: rowsTotal, bytes: opened.size, totalBytes: opened.size });

  // A preview runs the same writes and rolls them back: it reports exactly what the import would do.
  let write = false;
  const applied: WriterStats = await writer.complete((applied) => {
    rejections.push(...applied.repeats);
    rejections.sort((a, b) => a.row_number - b.row_number);
    write = !opts.dryRun && applied.added + applied.updated + applied.unchanged > 0;
    if (!write) return null;
    return {
      summary: {
        import_id: importId,
        file_name: fileName,
        file_sha256: sha256,
        file_size: opened.size,
        format: sniffed.format,
        preset,
        rows_total: rowsTotal,
        added: applied.added,
        updated: applied.updated,
        unchanged: applied.unchanged,
        rejected: rejections.length,
        started_at: startedAt,
        finished_at: ctx.now(),
      },
      rejections,
    };
  });
  const report: Omit<ImportReport, 'message'> = {
    import_id: write ? importId : null,
    dry_run: opts.dryRun,
    file_name: fileName,
    preset,
    format: sniffed.format,
    rows_total: rowsTotal,
    added: applied.added,
    updated: applied.updated,
    unchanged: applied.unchanged,
    rejected: rejections.length,
    rejections,
    updates: applied.updates,
    wallets_created: applied.walletsCreated,
    duration_ms: Math.round(performance.now() - t0),
  };
  return { ...report, message: summaryMessage(report, unmappedColumns(sniffed.headers, mapping)) };
}
