import { isAscii } from 'node:buffer';
import { createHash } from 'node:crypto';
import { createReadStream, openSync, readSync, closeSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { TextDecoder } from 'node:util';
import { parse as parseJson } from 'lossless-json';
import Papa from 'papaparse';
import type { LedgerSource } from '../../../shared/ledger';

/*
 * The one reader of table files, ledgers and books alike: encoding (UTF-8, UTF-16 with a BOM,
 * Windows-1252), CSV or JSON, delimiter, line ends, lines above the header, and the rows as a
 * stream of string cells. What the cells mean (numbers, dates, mappings) is the caller's.
 */

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
/**
 * Characters one CSV row may take: past them the row is taken for a quote never closed. papaparse
 * parses the unfinished last row of each piece again with the next, so a run-on row costs its
 * length once per piece.
 */
const MAX_ROW_CHARS = 1024 * 1024;
/** Data rows of the head kept for detection (decimal separators, date orders): enough to see many forms. */
const HEAD_ROWS = 5000;
/** The separators papaparse chooses among, in order of preference on a tie. */
const DELIMITERS = [',', ';', '\t', '|'];

/** UTF-8 (with or without a BOM), UTF-16 with a BOM, or Windows-1252: what Excel's "CSV (Comma delimited)" writes on Windows. */
type Encoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';
type Newline = '\r\n' | '\n' | '\r';

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

function encodingOf(head: Buffer, whole: boolean): { encoding: Encoding; bom: number } {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', bom: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bom: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bom: 2 };
  // No BOM: the first non-ASCII character decides; none in the head (or one cut by its end) is
  // UTF-8 here, and Decode decides again on the whole stream by the same rule.
  const at = firstNonAscii(head);
  return { encoding: at < 0 ? 'utf-8' : (judgeFirstNonAscii(head, at, whole) ?? 'utf-8'), bom: 0 };
}

/**
 * A TextDecoder for the encoding. Node 20's decodes Windows-1252 as Latin-1 (0x80 as U+0080, not
 * '€') in a call without `stream` until a call with it has made the decoder use ICU
 * (nodejs/node#56542): an empty streaming call first does that.
 */
function textDecoder(encoding: Encoding, options: { fatal: boolean; ignoreBOM?: boolean }): TextDecoder {
  const decoder = new TextDecoder(encoding, options);
  if (encoding === 'windows-1252') decoder.decode(new Uint8Array(0), { stream: true });
  return decoder;
}

/** The offset of the first byte above 0x7f, or -1. */
function firstNonAscii(bytes: Buffer): number {
  if (isAscii(bytes)) return -1;
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! > 0x7f) return i;
  return -1;
}

/**
 * A file without a BOM is UTF-8 if its first non-ASCII character is a UTF-8 sequence, else
 * Windows-1252 (whose text is seldom also valid UTF-8). Undefined while the sequence at `at` is cut
 * short by the end of `bytes` and more may follow (`final` false). A file whose first non-ASCII
 * character is UTF-8 but which breaks UTF-8 later is refused: its encoding is mixed.
 */
function judgeFirstNonAscii(bytes: Buffer, at: number, final: boolean): Encoding | undefined {
  const lead = bytes[at]!;
  const length = lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
  if (length === 0) return 'windows-1252';
  const seq = bytes.subarray(at, at + length);
  try {
    // With stream set, a valid start of a sequence decodes to nothing; a wrong byte throws at once.
    new TextDecoder('utf-8', { fatal: true }).decode(seq, { stream: seq.length < length });
  } catch {
    return 'windows-1252';
  }
  if (seq.length < length) return final ? 'windows-1252' : undefined;
  return 'utf-8';
}

/** ASCII text in UTF-16 (either byte order): in its first bytes, every other byte is NUL and the others are not. */
function looksUtf16(head: Buffer): boolean {
  const n = Math.min(head.length, 256) & ~1;
  if (n < 4) return false;
  for (const zero of [0, 1]) {
    let fits = true;
    for (let i = 0; i < n && fits; i += 2) fits = head[i + zero] === 0 && head[i + 1 - zero] !== 0;
    if (fits) return true;
  }
  return false;
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
  if ((encoding === 'utf-8' || encoding === 'windows-1252') && head.includes(0)) {
    if (looksUtf16(head))
      throw new FileError(
        'the file looks like UTF-16 text without a byte-order mark (a NUL byte beside every character); save it as UTF-8, or as UTF-16 with a byte-order mark ("Unicode text")',
      );
    throw new FileError('the file is not text (it contains NUL bytes); expected CSV or JSON in UTF-8');
  }
}

/**
 * Decode bytes to text (TextDecoder drops a byte-order mark), refusing invalid sequences: a file in
 * another encoding must not land garbled. A UTF-8 file without a BOM stays undecided until its first
 * non-ASCII character (ASCII reads the same either way), which may make it Windows-1252 (see
 * judgeFirstNonAscii): the head the sniff saw may have been all ASCII.
 */
class Decode extends Transform {
  private decoder: TextDecoder;
  private readonly hash = createHash('sha256');
  /** True until the first non-ASCII character of a UTF-8 file decides its encoding. */
  private undecided: boolean;
  /** The start of that character, held while it is cut by the end of a piece. */
  private held: Buffer | null = null;
  /** The decoder holds no part of a character: the last piece was all ASCII (or there was none). */
  private clean = true;
  /** The decoder has read the file's first bytes (and so takes a U+FEFF after them for text, not a BOM). */
  private started = false;
  bytes = 0;

  constructor(
    public encoding: Encoding,
    private readonly onBytes?: (bytes: number) => void,
    private readonly wait?: () => Promise<void> | undefined,
  ) {
    super({ readableObjectMode: true });
    this.decoder = textDecoder(encoding, { fatal: true });
    this.undecided = encoding === 'utf-8';
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

  /**
   * One piece a turn of the event loop: its rows are parsed and checked as it is pushed, and a
   * megabyte at once would hold the service's thread for tens of milliseconds; the requests that
   * arrive meanwhile (verifications take a turn each, engine/turns.ts) are served between pieces.
   */
  private decode(chunk: Buffer, done: (err?: Error | null, data?: string) => void): void {
    this.hash.update(chunk);
    const start = this.bytes;
    this.bytes += chunk.length;
    const piece = (at: number): void => {
      // Destroyed meanwhile (the parse failed): nothing more is read.
      if (this.destroyed) return;
      let text: string;
      try {
        text = this.toText(chunk.subarray(at, at + PARSE_PIECE), false);
      } catch {
        done(
          new FileError(
            `the file is not valid ${this.encoding.toUpperCase()} (invalid byte sequence near byte ${start + at}); save it as UTF-8`,
          ),
        );
        return;
      }
      if (text !== '') this.push(text);
      if (at + PARSE_PIECE < chunk.length) setImmediate(piece, at + PARSE_PIECE);
      else {
        this.onBytes?.(this.bytes);
        done();
      }
    };
    piece(0);
  }

  /** The text of the next bytes (the last ones when final), deciding the encoding if still undecided. */
  private toText(piece: Buffer, final: boolean): string {
    let bytes = piece;
    if (this.held) {
      bytes = Buffer.concat([this.held, piece]);
      this.held = null;
    }
    // ASCII reads byte for byte the same in UTF-8 and Windows-1252, and copied as Latin-1 it is a
    // quarter of the decoder's work (most exports are all ASCII: 0.25 s of a 257 MB file). Only
    // when the decoder holds nothing: else its part of a character must meet the bytes that end it.
    const ascii = isAscii(bytes);
    const wasClean = this.clean;
    this.clean = ascii;
    if (ascii && wasClean && this.encoding !== 'utf-16le' && this.encoding !== 'utf-16be') {
      if (!this.started && bytes.length > 0) {
        this.started = true;
        this.decoder.decode(bytes.subarray(0, 1), { stream: true });
      }
      return bytes.toString('latin1');
    }
    if (bytes.length > 0) this.started = true;
    if (this.undecided) {
      const at = ascii ? -1 : firstNonAscii(bytes);
      if (at >= 0) {
        const verdict = judgeFirstNonAscii(bytes, at, final);
        if (verdict === undefined) {
          this.held = Buffer.from(bytes.subarray(at));
          return this.decoder.decode(bytes.subarray(0, at), { stream: true });
        }
        this.undecided = false;
        if (verdict !== this.encoding) {
          // Only ASCII has been decoded, and nothing is pending: the new decoder starts clean.
          this.encoding = verdict;
          this.decoder = textDecoder(verdict, { fatal: true });
        }
      }
    }
    return this.decoder.decode(bytes, { stream: !final });
  }

  override _flush(done: (err?: Error | null, data?: string) => void): void {
    try {
      const tail = this.toText(Buffer.alloc(0), true);
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
  /** As the head shows it; streamRows answers the encoding the whole file was read in. */
  encoding: Encoding;
  delimiter: string;
  /** The CSV's line break given to the streaming parser: '\n' (a CRLF's CR is taken off the row: endLine) unless the head's are lone CRs (JSON: '\n'). */
  newline: Newline;
  headers: string[];
  /** First rows as cells, aligned with headers (empty cells past the header's width dropped). */
  sample: string[][];
  /**
   * Every complete data row of the head (the first 256 KiB), up to 5000, blank lines skipped,
   * aligned as sample: enough rows to tell decimal separators and date orders apart.
   */
  headRows: string[][];
  /** Rows in the file: exact when the head is all of it, else estimated from the bytes per row of the head's rows. */
  rowEstimate: number | null;
}

function decodeHead(head: Buffer, encoding: Encoding, bom: number, whole: boolean): string {
  const decoder = textDecoder(encoding, { fatal: true, ignoreBOM: true });
  try {
    return decoder.decode(head.subarray(bom), { stream: !whole });
  } catch {
    throw new FileError(
      `the file is not valid ${encoding.toUpperCase()} (invalid byte sequence in its first ${head.length} bytes); save it as UTF-8`,
    );
  }
}

/**
 * What papaparse finds in the text: the delimiter that splits its first rows most evenly (',' ';' tab
 * or '|'; ',' when none splits them), and the line break. LF ends a line, and a CR before it goes
 * with it (endLine): a file whose rows were appended by another program mixes CRLF and LF, and
 * splitting at either alone merges or breaks its rows (and may pick the wrong delimiter). A CRLF
 * inside a quoted cell stays in the cell. Only a file of lone CRs (old Mac) is split at them.
 */
function guessLayout(text: string): { delimiter: string; newline: Newline } {
  const guess = (newline?: Newline) =>
    Papa.parse<string[]>(text, { delimitersToGuess: DELIMITERS, preview: 10, skipEmptyLines: 'greedy', ...(newline ? { newline } : {}) })
      .meta;
  const first = guess();
  if (first.linebreak === '\r') return { delimiter: first.delimiter, newline: '\r' };
  return { delimiter: guess('\n').delimiter, newline: '\n' };
}

/** The delimiter of a CSV text, as sniff finds it. */
export function guessDelimiter(text: string): string {
  return guessLayout(text).delimiter;
}

/** Look at the start of a file: encoding, CSV or JSON, header and the first rows. */
export function sniff(opened: OpenedSource): Sniffed {
  const whole = opened.head.length === opened.size;
  const { encoding, bom } = encodingOf(opened.head, whole);
  refuseBinary(opened.head.subarray(bom), encoding);
  const text = decodeHead(opened.head, encoding, bom, whole);
  const first = /\S/.exec(text);
  if (!first) throw new FileError('the file has no content');
  if (first[0] === '[') return sniffJson(text, whole, encoding, opened);
  if (first[0] === '{') throw new FileError('a JSON ledger must be an array of objects ([{...}, {...}]), not a single object');
  return sniffCsv(text, whole, encoding, opened);
}

function sniffCsv(text: string, whole: boolean, encoding: Encoding, opened: OpenedSource): Sniffed {
  const { delimiter, newline } = guessLayout(text);
  let headers: string[] | undefined;
  let headerEnd = 0;
  const headRows: string[][] = [];
  let dataRows = 0;
  let dataEnd = 0;
  // Each row is taken when the next one comes: the last row papaparse gives runs to the end of
  // the text, which, unless the head is the whole file, may have cut it short.
  let last: { cells: string[]; end: number } | undefined;
  /** The first lines after the header line, to tell a title above the table from a header. */
  const lines: string[][] = [];
  const take = ({ cells, end }: { cells: string[]; end: number }) => {
    if (cells.every((c) => c.trim() === '')) return;
    dataRows++;
    dataEnd = end;
    if (headRows.length < HEAD_ROWS) headRows.push(fitToHeader(cells, headers!.length));
  };
  Papa.parse<string[]>(text, {
    delimiter,
    newline,
    step: (result) => {
      endLine(result.data, newline);
      if (headers === undefined) {
        // Blank lines above the header (or lines of delimiters only, as a spreadsheet saves empty rows) are not the header.
        if (result.data.every((c) => c.trim() === '')) return;
        headers = result.data;
        headerEnd = result.meta.cursor;
        return;
      }
      if (lines.length < 10) lines.push(result.data);
      if (last) take(last);
      last = { cells: result.data, end: result.meta.cursor };
    },
  });
  if (last && whole) take(last);
  headers ??= [];
  if (headers.filter((h) => h.trim() !== '').length < 2) {
    // A title above the table ("Transactions of 0x…"): one cell, and the columns on a later line.
    const table = lines.findIndex((cells) => cells.filter((c) => c.trim() !== '').length >= 2);
    if (headers.length > 0 && table >= 0)
      throw new FileError(
        `the first line (${JSON.stringify(headers.join(delimiter).trim().slice(0, 60))}) is not a header but a title: the table's columns start ${table + 1} line${table ? 's' : ''} below it; delete the lines above the header and import again`,
      );
    throw new FileError('the file is neither CSV with a header row (one column or none found) nor a JSON array');
  }
  const dupes = headers.filter((h, i) => h.trim() !== '' && headers!.findIndex((x) => x.trim() === h.trim()) !== i);
  if (dupes.length) throw new FileError(`the header names a column twice: ${[...new Set(dupes)].join(', ')}`);
  return {
    format: 'csv',
    encoding,
    delimiter,
    newline,
    headers,
    sample: headRows.slice(0, SAMPLE_ROWS),
    headRows,
    rowEstimate: estimate(text.slice(headerEnd, Math.max(headerEnd, dataEnd)), dataRows, whole, opened, encoding),
  };
}

/**
 * A row split at LF: the CR of a CRLF is left at the end of its last cell, and taken off here (a
 * quoted last cell has it after its closing quote, where papaparse passes over it as a space).
 */
function endLine(cells: string[], newline: Newline): string[] {
  if (newline !== '\n') return cells;
  const last = cells.length - 1;
  const cell = cells[last]!;
  if (cell.charCodeAt(cell.length - 1) === 13) cells[last] = cell.slice(0, -1);
  return cells;
}

/**
 * A row with more cells than the header, every extra one empty, cut to the header's width: Etherscan's
 * internal and token exports end each data row with a comma that their header line lacks. Extra cells
 * that hold something stay, for the importer to reject the row by its count.
 */
function fitToHeader(cells: string[], width: number): string[] {
  if (cells.length <= width) return cells;
  for (let i = width; i < cells.length; i++) if (cells[i]!.trim() !== '') return cells;
  cells.length = width;
  return cells;
}

/** Rows in the file: exact when all of it was read, else from the bytes per row of the rows read. */
function estimate(text: string, rows: number, exact: boolean, opened: OpenedSource, encoding: Encoding): number | null {
  if (exact) return rows;
  if (rows <= 0) return null;
  const bytes = encoding === 'utf-8' ? Buffer.byteLength(text) : encoding === 'windows-1252' ? text.length : text.length * 2;
  return Math.round((opened.size / bytes) * rows);
}

function sniffJson(text: string, whole: boolean, encoding: Encoding, opened: OpenedSource): Sniffed {
  const objects: Record<string, unknown>[] = [];
  const splitter = new JsonArraySplitter((element, index) => {
    if (objects.length <= SAMPLE_ROWS) objects.push(readJsonObject(element, index + 1) as Record<string, unknown>);
    else if (objects.length < HEAD_ROWS) {
      // Past the sample, rows for detection only: one that is not JSON is left to the import to report.
      try {
        objects.push(readJsonObject(element, index + 1) as Record<string, unknown>);
      } catch {
        /* skipped */
      }
    }
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
  const headRows = objects.map((o) => headers.map((h) => (typeof o === 'object' && o !== null ? jsonCell(o[h]) : '')));
  const sample = headRows.slice(0, SAMPLE_ROWS);
  return {
    format: 'json',
    encoding,
    delimiter: ',',
    newline: '\n',
    headers,
    sample,
    headRows,
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

/**
 * Stream every data row (header excluded) of the file into sink; resolves with the file's SHA-256,
 * its size and the encoding it was read in (Windows-1252 for a file without a BOM whose first
 * non-ASCII character lies past the head and is not UTF-8).
 */
export async function streamRows(
  opened: OpenedSource,
  sniffed: Sniffed,
  sink: RowSink,
): Promise<{ sha256: string; bytes: number; encoding: Encoding }> {
  const input = opened.stream();
  const decode = new Decode(sniffed.encoding, (b) => sink.progress(b), sink.wait && (() => sink.wait!()));
  const text = input.pipe(decode);
  const failed = new Promise<never>((_, reject) => {
    input.on('error', (err) => reject(new FileError(`cannot read the file: ${err.message}`)));
    decode.on('error', reject);
  });
  const done = sniffed.format === 'csv' ? parseCsv(text, sniffed, sink) : parseJsonRows(text, sniffed, sink);
  await Promise.race([done, failed]);
  return { sha256: decode.sha256(), bytes: decode.bytes, encoding: decode.encoding };
}

/**
 * The data rows one by one, for a reader that awaits between them (a books run checks its claims a
 * thousand at a time): the rows of each piece are taken before the next piece is read, so memory
 * holds one piece's rows. Each comes with its 1-based data row number (blank rows are counted, as
 * a spreadsheet shows them). Returns what streamRows answers once the last row is taken.
 */
export async function* iterateRows(
  opened: OpenedSource,
  sniffed: Sniffed,
): AsyncGenerator<{ cells: string[]; row: number }, Awaited<ReturnType<typeof streamRows>>> {
  const queue: { cells: string[]; row: number }[][] = [];
  let drained: (() => void) | undefined;
  let arrived: (() => void) | undefined;
  let stopped = false;
  let outcome: { ok: Awaited<ReturnType<typeof streamRows>> } | { err: unknown } | undefined;
  const wake = () => {
    const a = arrived;
    arrived = undefined;
    a?.();
  };
  void streamRows(opened, sniffed, {
    rows: (batch, first) => {
      queue.push(batch.map((cells, i) => ({ cells, row: first + i })));
      wake();
    },
    progress: () => {},
    wait: () => {
      if (stopped) return Promise.reject(new Error('stopped'));
      return queue.length === 0 ? undefined : new Promise<void>((resolve) => (drained = resolve));
    },
  }).then(
    (ok) => ((outcome = { ok }), wake()),
    (err: unknown) => ((outcome = { err }), wake()),
  );
  try {
    for (;;) {
      const batch = queue.shift();
      if (batch !== undefined) {
        yield* batch;
        if (queue.length === 0) {
          const d = drained;
          drained = undefined;
          d?.();
        }
        continue;
      }
      if (outcome !== undefined) {
        if ('err' in outcome) throw outcome.err;
        return outcome.ok;
      }
      await new Promise<void>((resolve) => (arrived = resolve));
    }
  } finally {
    // A reader that stops early ends the reading at the next piece.
    stopped = true;
    drained?.();
  }
}

/**
 * papaparse's streaming parser over the decoded pieces. It holds back the last row of each piece,
 * unfinished, and parses it again from its start with the next piece; the newline comes from the
 * head, not from the first piece (which may be a few bytes).
 */
function parseCsv(text: Readable, sniffed: Sniffed, sink: RowSink): Promise<void> {
  const width = sniffed.headers.length;
  return new Promise((resolve, reject) => {
    let headerSeen = false;
    let sent = 0;
    // Characters handed to papaparse: registered first, this listener counts each piece before papaparse parses it.
    let delivered = 0;
    text.on('data', (piece: string) => (delivered += piece.length));
    Papa.parse<string[]>(text as unknown as File, {
      delimiter: sniffed.delimiter,
      newline: sniffed.newline,
      skipEmptyLines: false,
      chunk: (results, parser) => {
        try {
          // An error at index data.length is in the held-back row: a piece that ends between a
          // closing quote and the '\n' of its CRLF (or the spaces before a delimiter) makes
          // papaparse call the quote malformed, though the row is whole once the next piece comes.
          // That row is parsed again, and its real errors reported then.
          const data = results.data;
          const quoteError = results.errors.find((e) => e.type === 'Quotes' && (e.row ?? 0) < data.length);
          const headerHere = headerSeen ? 0 : 1;
          if (quoteError) {
            throw new FileError(
              `malformed CSV: ${quoteError.message.toLowerCase()} (near data row ${sent + (quoteError.row ?? 0) + 1 - headerHere})`,
            );
          }
          if (delivered - results.meta.cursor > MAX_ROW_CHARS) {
            const near = Math.max(1, sent + data.length + 1 - headerHere);
            throw new FileError(`malformed CSV: data row ${near} runs on past a million characters (a quote never closed?)`);
          }
          if (data.length === 0) return;
          let batch = data;
          if (!headerSeen) {
            // As sniff: blank lines above the header are skipped, then the header itself.
            const header = data.findIndex((cells) => cells.some((c) => c.trim() !== ''));
            if (header < 0) return;
            batch = data.slice(header + 1);
          }
          headerSeen = true;
          for (const cells of batch) fitToHeader(endLine(cells, sniffed.newline), width);
          if (batch.length > 0) sink.rows(batch, sent + 1);
          sent += batch.length;
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
