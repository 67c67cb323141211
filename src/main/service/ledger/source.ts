import { createHash } from 'node:crypto';
import { createReadStream, openSync, readSync, closeSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { TextDecoder } from 'node:util';
import { parse as parseJson } from 'lossless-json';
import Papa from 'papaparse';
import type { LedgerSource } from '../../../shared/ledger';

/* Reading a ledger file: encoding, format, header, and the rows as a stream of string cells. */

/** The file cannot be read at all; the message names why. */
export class FileError extends Error {}

const HEAD_BYTES = 256 * 1024;
/** Bytes per read: large, so the reader seldom waits on the disk. */
const READ_CHUNK = 1024 * 1024;
/**
 * Bytes decoded and parsed at a time: small, so the text is an ordinary young V8 string whose
 * rows die young (a 1 MiB string lives in the large-object space until a full collection, and the
 * rows of large pieces survive scavenges; both let the heap swell by a hundred megabytes).
 */
const PARSE_PIECE = 64 * 1024;
const SAMPLE_ROWS = 20;

type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be';

export interface OpenedSource {
  name: string;
  size: number;
  /** The first bytes (all of them for a small file). */
  head: Buffer;
  /** The bytes, from the start, in chunks of READ_CHUNK. */
  stream(): Readable;
}

export function openSource(source: LedgerSource): OpenedSource {
  if ('path' in source) {
    let size: number;
    try {
      const st = statSync(source.path);
      if (!st.isFile()) throw new FileError('is not a file');
      size = st.size;
    } catch (err) {
      if (err instanceof FileError) throw err;
      throw new FileError((err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `cannot be read (${(err as Error).message})`);
    }
    const fd = openSync(source.path, 'r');
    const head = Buffer.alloc(Math.min(size, HEAD_BYTES));
    try {
      readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
    return { name: basename(source.path), size, head, stream: () => createReadStream(source.path, { highWaterMark: READ_CHUNK }) };
  }
  const bytes = Buffer.from(source.text, 'utf8');
  return {
    name: source.name,
    size: bytes.length,
    head: bytes.subarray(0, HEAD_BYTES),
    stream: () =>
      Readable.from(
        (function* () {
          for (let i = 0; i < bytes.length; i += READ_CHUNK) yield bytes.subarray(i, i + READ_CHUNK);
        })(),
      ),
  };
}

function encodingOf(head: Buffer): { encoding: Encoding; bom: number } {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', bom: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bom: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bom: 2 };
  return { encoding: 'utf-8', bom: 0 };
}

/** Refuse what is plainly not a text ledger, naming what it seems to be. */
function refuseBinary(head: Buffer, encoding: Encoding): void {
  if (head.length === 0) throw new FileError('the file is empty');
  if (head.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))) {
    throw new FileError('the file is a ZIP archive (an Excel .xlsx workbook?); save it as CSV (UTF-8) first');
  }
  if (head.subarray(0, 8).equals(Buffer.from('d0cf11e0a1b11ae1', 'hex')))
    throw new FileError('the file is an old Excel .xls workbook; save it as CSV (UTF-8) first');
  if (head.subarray(0, 5).toString('latin1') === '%PDF-') throw new FileError('the file is a PDF, not a CSV or JSON ledger');
  if (encoding === 'utf-8' && head.includes(0))
    throw new FileError('the file is not text (it contains NUL bytes); expected CSV or JSON in UTF-8');
}

/** Decode bytes to text (TextDecoder drops a byte-order mark), refusing invalid sequences: a file in another encoding must not land garbled. */
class Decode extends Transform {
  private readonly decoder: TextDecoder;
  private readonly hash = createHash('sha256');
  bytes = 0;

  constructor(
    private readonly encoding: Encoding,
    private readonly onBytes?: (bytes: number) => void,
    private readonly wait?: () => Promise<void> | undefined,
  ) {
    super({ readableObjectMode: true });
    this.decoder = new TextDecoder(encoding, { fatal: true });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null, data?: string) => void): void {
    // Wait after decoding, not before: a chunk held across the wait outlives young-generation
    // collections and piles up, a megabyte each, until a full one.
    this.decode(chunk, (err) => {
      const waiting = err ? undefined : this.wait?.();
      if (waiting === undefined) done(err);
      else waiting.then(() => done(), done);
    });
  }

  private decode(chunk: Buffer, done: (err?: Error | null, data?: string) => void): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    for (let at = 0; at < chunk.length; at += PARSE_PIECE) {
      let text: string;
      try {
        text = this.decoder.decode(chunk.subarray(at, at + PARSE_PIECE), { stream: true });
      } catch {
        const near = this.bytes - chunk.length + at;
        done(
          new FileError(`the file is not valid ${this.encoding.toUpperCase()} (invalid byte sequence near byte ${near}); save it as UTF-8`),
        );
        return;
      }
      if (text !== '') this.push(text);
    }
    this.onBytes?.(this.bytes);
    done();
  }

  override _flush(done: (err?: Error | null, data?: string) => void): void {
    try {
      const tail = this.decoder.decode();
      done(null, tail === '' ? undefined : tail);
    } catch {
      done(new FileError(`the file is not valid ${this.encoding.toUpperCase()} (it ends inside a character)`));
    }
  }

  sha256(): string {
    return this.hash.digest('hex');
  }
}

export interface Sniffed {
  format: 'csv' | 'json';
  encoding: Encoding;
  delimiter: string;
  headers: string[];
  /** First rows as cells, aligned with headers. */
  sample: string[][];
  /** Bytes per row in the sample, to estimate the file's rows. */
  rowEstimate: number | null;
}

function decodeHead(head: Buffer, encoding: Encoding, bom: number, whole: boolean): string {
  const decoder = new TextDecoder(encoding, { fatal: true, ignoreBOM: true });
  try {
    return decoder.decode(head.subarray(bom), { stream: !whole });
  } catch {
    throw new FileError(
      `the file is not valid ${encoding.toUpperCase()} (invalid byte sequence in its first ${head.length} bytes); save it as UTF-8`,
    );
  }
}

/** The delimiter that splits the header line most (outside quotes): ',' ';' tab or '|'. */
export function guessDelimiter(firstLine: string): string {
  let best = ',';
  let bestCount = 0;
  for (const d of [',', ';', '\t', '|']) {
    let count = 0;
    let quoted = false;
    for (const ch of firstLine) {
      if (ch === '"') quoted = !quoted;
      else if (ch === d && !quoted) count++;
    }
    if (count > bestCount) {
      best = d;
      bestCount = count;
    }
  }
  return best;
}

/** Look at the start of a file: encoding, CSV or JSON, header and the first rows. */
export function sniff(opened: OpenedSource): Sniffed {
  const { encoding, bom } = encodingOf(opened.head);
  refuseBinary(opened.head.subarray(bom), encoding);
  const whole = opened.head.length === opened.size;
  const text = decodeHead(opened.head, encoding, bom, whole);
  const first = /\S/.exec(text);
  if (!first) throw new FileError('the file has no content');
  if (first[0] === '[') return sniffJson(text, whole, encoding, opened);
  if (first[0] === '{') throw new FileError('a JSON ledger must be an array of objects ([{...}, {...}]), not a single object');

  const lineEnd = text.search(/\r?\n/);
  const delimiter = guessDelimiter(lineEnd < 0 ? text : text.slice(0, lineEnd));
  const parsed = Papa.parse<string[]>(text, { delimiter, preview: SAMPLE_ROWS + 2, skipEmptyLines: 'greedy' });
  const rows = parsed.data;
  // The estimate counts the bytes of the rows read after the header line, not of the whole head.
  const measured = {
    text: text.slice(Math.max(0, lineEnd), parsed.meta.cursor),
    rows: rows.length - 1,
    exact: whole && !parsed.meta.truncated,
  };
  if (!whole && rows.length > 1) rows.pop();
  const headers = rows[0] ?? [];
  if (headers.length < 2 || headers.every((h) => h.trim() === '')) {
    throw new FileError('the file is neither CSV with a header row (one column or none found) nor a JSON array');
  }
  const dupes = headers.filter((h, i) => h.trim() !== '' && headers.findIndex((x) => x.trim() === h.trim()) !== i);
  if (dupes.length) throw new FileError(`the header names a column twice: ${[...new Set(dupes)].join(', ')}`);
  const sample = rows.slice(1, SAMPLE_ROWS + 1);
  return {
    format: 'csv',
    encoding,
    delimiter,
    headers,
    sample,
    rowEstimate: estimate(measured.text, measured.rows, measured.exact, opened, encoding),
  };
}

/** Rows in the file: exact when all of it was read, else from the bytes per row of the rows read. */
function estimate(text: string, rows: number, exact: boolean, opened: OpenedSource, encoding: Encoding): number | null {
  if (exact) return rows;
  if (rows <= 0) return null;
  const bytes = encoding === 'utf-8' ? Buffer.byteLength(text) : text.length * 2;
  return Math.round((opened.size / bytes) * rows);
}

function sniffJson(text: string, whole: boolean, encoding: Encoding, opened: OpenedSource): Sniffed {
  const objects: Record<string, unknown>[] = [];
  const splitter = new JsonArraySplitter((element, index) => {
    if (objects.length <= SAMPLE_ROWS) objects.push(readJsonObject(element, index + 1) as Record<string, unknown>);
  });
  try {
    splitter.push(text);
    if (whole) splitter.end();
  } catch (err) {
    if (err instanceof FileError) throw err;
    throw new FileError(`the file is not a valid JSON array: ${(err as Error).message}`);
  }
  const firstObject = objects[0];
  if (!firstObject || typeof firstObject !== 'object' || Array.isArray(firstObject))
    throw new FileError('a JSON ledger must be an array of objects; the first element is not an object');
  const headers = Object.keys(firstObject);
  const sample = objects.slice(0, SAMPLE_ROWS).map((o) => headers.map((h) => (typeof o === 'object' && o !== null ? jsonCell(o[h]) : '')));
  return {
    format: 'json',
    encoding,
    delimiter: ',',
    headers,
    sample,
    rowEstimate: estimate(text, splitter.count, whole, opened, encoding),
  };
}

/** An element of the array, parsed with numbers kept as their text. */
function readJsonObject(text: string, rowNumber: number): unknown {
  try {
    return parseJson(text, null, (n: string) => n);
  } catch (err) {
    throw new FileError(`data row ${rowNumber} is not valid JSON: ${(err as Error).message}`);
  }
}

/** A JSON value as a cell: text as is, numbers as written, null as empty. Objects and arrays are not cells. */
function jsonCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return '\u0000';
}

/**
 * Splits a JSON array into its elements' texts as chunks arrive, so a large JSON ledger is read
 * element by element, never as a whole.
 */
export class JsonArraySplitter {
  private state: 'start' | 'value' | 'after' | 'done' = 'start';
  private depth = 0;
  private inString = false;
  private escape = false;
  private buf = '';
  count = 0;

  constructor(private readonly onElement: (text: string, index: number) => void) {}

  push(chunk: string): void {
    let start = 0;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (this.state === 'value' || this.depth > 0) {
        if (this.inString) {
          if (this.escape) this.escape = false;
          else if (c === 92) this.escape = true;
          else if (c === 34) this.inString = false;
          continue;
        }
        if (c === 34) this.inString = true;
        else if (c === 123 || c === 91) this.depth++;
        else if (c === 125 || c === 93) {
          if (this.depth === 0 && c === 93) {
            this.emit(this.buf + chunk.slice(start, i), true);
            this.buf = '';
            this.state = 'done';
            continue;
          }
          this.depth--;
        } else if (c === 44 && this.depth === 0) {
          this.emit(this.buf + chunk.slice(start, i), false);
          this.buf = '';
          start = i + 1;
        }
        continue;
      }
      if (c === 32 || c === 9 || c === 10 || c === 13) continue;
      if (this.state === 'start') {
        if (c !== 91) throw new Error('expected [ at the start');
        this.state = 'value';
        start = i + 1;
      } else if (this.state === 'done') {
        throw new Error('unexpected text after the closing ]');
      }
    }
    if (this.state === 'value') this.buf += chunk.slice(start);
  }

  end(): void {
    if (this.state !== 'done')
      throw new Error(this.state === 'start' ? 'no array found' : 'the array is not closed (the file is cut short?)');
  }

  private emit(text: string, last: boolean): void {
    if (text.trim() === '') {
      if (last && this.count === 0) return;
      throw new Error(`element ${this.count + 1} is empty (a stray comma?)`);
    }
    this.onElement(text, this.count++);
  }
}

export interface RowSink {
  /** Rows of cells, each with its 1-based data row number; called synchronously per chunk. */
  rows(batch: string[][], firstRowNumber: number): void;
  progress(bytes: number): void;
  /** Before each chunk of the file: resolves when the rows may come (undefined: at once); a rejection ends the reading with it. */
  wait?(): Promise<void> | undefined;
}

/** Stream every data row (header excluded) of the file into sink; resolves with the file's SHA-256. */
export async function streamRows(opened: OpenedSource, sniffed: Sniffed, sink: RowSink): Promise<{ sha256: string; bytes: number }> {
  const input = opened.stream();
  const decode = new Decode(sniffed.encoding, (b) => sink.progress(b), sink.wait && (() => sink.wait!()));
  const text = input.pipe(decode);
  const failed = new Promise<never>((_, reject) => {
    input.on('error', (err) => reject(new FileError(`cannot read the file: ${err.message}`)));
    decode.on('error', reject);
  });
  const done = sniffed.format === 'csv' ? parseCsv(text, sniffed, sink) : parseJsonRows(text, sniffed, sink);
  await Promise.race([done, failed]);
  return { sha256: decode.sha256(), bytes: decode.bytes };
}

function parseCsv(text: Readable, sniffed: Sniffed, sink: RowSink): Promise<void> {
  return new Promise((resolve, reject) => {
    let row = -1;
    Papa.parse<string[]>(text as unknown as File, {
      delimiter: sniffed.delimiter,
      skipEmptyLines: false,
      chunk: (results, parser) => {
        try {
          const quoteError = results.errors.find((e) => e.type === 'Quotes');
          if (quoteError) {
            throw new FileError(`malformed CSV: ${quoteError.message.toLowerCase()} (near data row ${row + 1 + (quoteError.row ?? 0)})`);
          }
          let batch = results.data;
          if (row < 0) {
            batch = batch.slice(1);
            row = 0;
          }
          sink.rows(batch, row + 1);
          row += batch.length;
        } catch (err) {
          // Settle first: abort() calls complete, which would resolve.
          reject(err);
          parser.abort();
          text.destroy();
        }
      },
      complete: () => resolve(),
      error: (err: Error) => reject(err instanceof FileError ? err : new FileError(`cannot read the file: ${err.message}`)),
    });
  });
}

function parseJsonRows(text: Readable, sniffed: Sniffed, sink: RowSink): Promise<void> {
  const { headers } = sniffed;
  let batch: string[][] = [];
  let batchStart = 1;
  const splitter = new JsonArraySplitter((element, index) => {
    const obj = readJsonObject(element, index + 1);
    if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) batch.push(['\u0001']);
    else batch.push(headers.map((h) => jsonCell((obj as Record<string, unknown>)[h])));
  });
  return new Promise((resolve, reject) => {
    const flush = () => {
      sink.rows(batch, batchStart);
      batchStart += batch.length;
      batch = [];
    };
    text.on('data', (chunk: string) => {
      try {
        splitter.push(chunk);
        flush();
      } catch (err) {
        text.destroy();
        reject(err instanceof FileError ? err : new FileError(`the file is not a valid JSON array: ${(err as Error).message}`));
      }
    });
    text.on('end', () => {
      try {
        splitter.end();
        flush();
        resolve();
      } catch (err) {
        reject(new FileError(`the file is not a valid JSON array: ${(err as Error).message}`));
      }
    });
  });
}

/** Marks a JSON element that is not an object, and a JSON value that is not a single cell. */
export const NOT_AN_OBJECT = '\u0001';
export const NOT_A_CELL = '\u0000';
