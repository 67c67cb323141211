import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * Valid rows wait here between reading the file (async, streaming) and applying them (one
 * synchronous transaction). A line is `values... \t row_number` (values in LEDGER_FIELDS order,
 * transaction_id first). Lines are spread over 256 buckets by the id's first two hex digits: each
 * bucket, sorted, is a contiguous run of the primary-key index, so rows reach SQLite in key order.
 * Each bucket fills a byte buffer outside the JS heap; a full buffer is appended to the bucket's
 * file in a temporary folder, so a small import never touches the disk and a large one keeps
 * about 16 MiB in memory however long the file.
 */

const BUCKETS = 256;
const BUFFER_BYTES = 64 * 1024;

const HEX_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < 16; i++) HEX_VALUE['0123456789abcdef'.charCodeAt(i)] = i;

const ID_LENGTH = 36;

function sameId(a: string, b: string): boolean {
  for (let i = 0; i < ID_LENGTH; i++) if (a.charCodeAt(i) !== b.charCodeAt(i)) return false;
  return true;
}

const rowOf = (line: string): number => Number(line.slice(line.lastIndexOf('\t') + 1));

export class Staging {
  private readonly buffers: (Buffer | undefined)[] = new Array<Buffer | undefined>(BUCKETS);
  private readonly used = new Int32Array(BUCKETS);
  private dir: string | undefined;
  lines = 0;

  /** Stage one row; values[0] is the lower-case transaction_id. Values contain no tab or line break. */
  add(rowNumber: number, values: string[]): void {
    const id = values[0]!;
    const b = (HEX_VALUE[id.charCodeAt(0)]! << 4) | HEX_VALUE[id.charCodeAt(1)]!;
    const line = `${values.join('\t')}\t${rowNumber}\n`;
    // UTF-8 needs at most 3 bytes per UTF-16 unit: checking that bound spares measuring every line.
    const bound = line.length * 3;
    let buf = this.buffers[b];
    if (buf === undefined) buf = this.buffers[b] = Buffer.allocUnsafe(Math.max(BUFFER_BYTES, bound));
    if (this.used[b]! + bound > buf.length) {
      this.spill(b);
      if (bound > buf.length) buf = this.buffers[b] = Buffer.allocUnsafe(bound);
    }
    this.used[b]! += buf.write(line, this.used[b]!);
    this.lines++;
  }

  private spill(b: number): void {
    this.dir ??= mkdtempSync(join(tmpdir(), 'nps-import-'));
    appendFileSync(join(this.dir, String(b)), this.buffers[b]!.subarray(0, this.used[b]!));
    this.used[b] = 0;
  }

  /**
   * Every staged line in transaction_id order, one bucket in memory at a time (once: buckets are
   * released as read). Sorting puts the lines of a repeated id side by side: the one from the
   * earliest row is kept, each other is handed to onRepeat instead.
   */
  *sorted(onRepeat: (rowNumber: number, firstRowNumber: number, id: string) => void): Generator<string> {
    for (let b = 0; b < BUCKETS; b++) {
      const buf = this.buffers[b];
      if (buf === undefined) continue;
      let text = buf.toString('utf8', 0, this.used[b]!);
      const file = this.dir === undefined ? undefined : join(this.dir, String(b));
      if (file !== undefined && existsSync(file)) text = readFileSync(file, 'utf8') + text;
      this.buffers[b] = undefined;
      const lines = text.split('\n');
      lines.pop();
      lines.sort();
      for (let i = 0; i < lines.length; ) {
        let end = i + 1;
        while (end < lines.length && sameId(lines[i]!, lines[end]!)) end++;
        if (end === i + 1) yield lines[i]!;
        else {
          const group = lines.slice(i, end).sort((x, y) => rowOf(x) - rowOf(y));
          yield group[0]!;
          const first = rowOf(group[0]!);
          for (const line of group.slice(1)) onRepeat(rowOf(line), first, line.slice(0, ID_LENGTH));
        }
        i = end;
      }
    }
  }

  dispose(): void {
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}
