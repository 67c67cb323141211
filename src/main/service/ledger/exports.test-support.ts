import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect } from 'vitest';
import type { LedgerRecord } from '../../../shared/ledger';
import type { CallMeta } from '../context';
import { tempService } from '../test-support';

/*
 * What the tests of real exports share (exports.test.ts, exports-more.test.ts): the corpus in
 * test/fixtures/exports, its facts.json (written from the files by check-facts.mjs), a service of
 * the test's own, and comparisons of records with a file's text.
 */

const DIR = join(__dirname, '../../../../test/fixtures/exports');
export const file = (name: string) => ({ path: join(DIR, name) });
export const textOf = (name: string) => readFileSync(join(DIR, name), 'utf8');

/** What check-facts.mjs says of a file (each test file reads the parts it needs). */
export interface Facts {
  rows: number;
  walletAddress: string | null;
  addressesOnEveryRow: string[];
  header: string[];
  amounts: { hash: string; row: number; column: string; raw: string }[];
  tokens: { symbol: string; contract: string }[];
  failedRows: { hash: string; row: number; status: string }[];
  extraTrailingField: boolean;
  accounts?: { address: string; rowsFrom: number[]; rowsTo: number[] }[];
  writtenPlaces?: { column: string; most: number; otherRows: { hash: string; row: number; raw: string; places: number }[] };
  amountUnits?: { column: string; units: string[] };
}
export const FACTS = JSON.parse(textOf('facts.json')) as Record<string, Facts>;
export const meta: CallMeta = { actor: 'cli' };

/** A fresh service for each test of the file that calls it (its hooks are the file's), and the calls on it. */
export function exportsService() {
  let svc: ReturnType<typeof tempService>;
  beforeEach(() => {
    svc = tempService();
  });
  afterEach(() => svc.dispose());
  const all = async (query: Record<string, unknown> = {}): Promise<LedgerRecord[]> => {
    const out: LedgerRecord[] = [];
    for (let page = 1; ; page++) {
      const p = await svc.invoke('transactions-list', { page_size: 500, page, ...query }, meta);
      out.push(...p.list);
      if (out.length >= p.total) return out;
    }
  };
  return {
    get svc() {
      return svc;
    },
    /** Start over with an empty store, within a test. */
    renew() {
      svc.dispose();
      svc = tempService();
    },
    importFile: (input: Record<string, unknown>) => svc.invoke('ledger-import', input, meta),
    all,
  };
}

/** A file's rows as stored: by hash. */
export const byHash = (records: LedgerRecord[]) => new Map(records.map((r) => [r.hash, r]));
/** An amount as written, thousands separators and trailing zeros dropped: "1,234.5000" is 1234.5. */
export const plain = (raw: string) =>
  raw
    .replace(/,/g, '')
    .replace(/(\.\d*?)0+$/, '$1')
    .replace(/\.$/, '');
/** The same records, whichever import wrote them and in whichever order. */
export const sameRecords = (a: LedgerRecord[], b: LedgerRecord[]) => {
  const strip = ({ import_id: _i, updated_at: _u, ...r }: LedgerRecord) => r;
  const key = (r: LedgerRecord) => r.transaction_id;
  expect([...a].sort((x, y) => key(x).localeCompare(key(y))).map(strip)).toEqual(
    [...b].sort((x, y) => key(x).localeCompare(key(y))).map(strip),
  );
};
