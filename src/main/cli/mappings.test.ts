import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BooksMapping, SavedMapping } from '../../shared/reconcile';
import { ReconcileReport } from '../../shared/reports';
import { startServer } from '../service/http/server';
import { tempService } from '../service/test-support';
import { nps } from './nps.test-support';

/*
 * The books mapping a run used is kept for the next file of that layout: the CLI proposes it
 * without --map, takes a saved mapping's name in --map, names one with --save-map, and lists,
 * shows, renames, edits and removes them (`mappings`). Against a real store, in its own process.
 */

const ROOT = join(import.meta.dirname, '../../..');
const BOOKS = join(ROOT, 'test/fixtures/books/bank-style.csv');
const MAP = join(ROOT, 'test/fixtures/books/bank-style.mapping.json');
const LEDGER = join(ROOT, 'resources/samples/native-ledger.csv');

describe('npm run nps -- mappings, and reconcile --map NAME / --save-map', () => {
  const svc = tempService();
  svc.close();
  afterAll(() => svc.dispose());
  const dir = ['--data-dir', svc.dataDir];
  const reconcile = (...args: string[]) =>
    nps(['reconcile', BOOKS, '--from', '2026-01-01', '--to', '2026-01-31', '--json', ...args, ...dir]);
  /** The claims as the run read them, group by group. */
  const claims = (out: string) => {
    const report = ReconcileReport.parse(JSON.parse(out));
    return Object.values(report.groups).flatMap((items) => items.map((i) => i.claimed));
  };

  it('keeps the mapping a run used and uses it for the next file of the layout; names, shows, edits, removes', async () => {
    expect((await nps(['import', LEDGER, ...dir])).code).toBe(0);
    expect((await nps(['mappings', 'list', ...dir])).out).toBe('No saved mappings yet: a reconcile run keeps the mapping it used.\n');

    // The first guess from the header cannot read the books' own words ("Ethereum", "USDT") as the ledger's.
    const guessed = await reconcile();
    const mapped = await reconcile('--map', MAP);
    expect(mapped.err).toBe('');
    expect(claims(mapped.out)[0]).toMatchObject({ chain_id: 'ETH', token_id: 'ETH_USDT', amount: '1234.5' });
    expect(claims(guessed.out)).not.toEqual(claims(mapped.out));

    // January's books again, no --map: the mapping the last run used, said on stderr.
    const again = await reconcile();
    expect(again.err).toBe('Mapping: the saved mapping "bank-style.csv" (npm run nps -- mappings show "bank-style.csv")\n');
    expect(claims(again.out)).toEqual(claims(mapped.out));

    const listed = await nps(['mappings', 'list', ...dir]);
    expect(listed.out).toMatch(
      /^bank-style\.csv {2}\(remembered from a run\)\n {2}for every wallet; last used \d{4}-\d\d-\d\d\n {2}layout: Booking date, Description, Reference, Tx hash, Network, Asset, … \(11 columns\)\n$/,
    );
    // show prints the mapping as --map FILE takes it: the file's, its defaults filled in.
    const shown = await nps(['mappings', 'show', 'BANK-STYLE.CSV', ...dir]);
    expect(JSON.parse(shown.out)).toEqual(BooksMapping.parse(JSON.parse(readFileSync(MAP, 'utf8'))));

    const renamed = await nps(['mappings', 'rename', 'bank-style.csv', 'Bank books', ...dir]);
    expect(renamed.out).toMatch(/^Renamed:\nBank books\n {2}for every wallet/);
    // --map takes a saved mapping's name; --save-map keeps the run's under another.
    const byName = await reconcile('--map', 'bank books', '--save-map', 'Bank books, Berlin');
    expect(byName.err).toBe(
      'Mapping: the saved mapping "Bank books" (npm run nps -- mappings show "Bank books")\nMapping saved as "Bank books, Berlin"\n',
    );
    expect(claims(byName.out)).toEqual(claims(mapped.out));
    const all = SavedMapping.array().parse(JSON.parse((await nps(['mappings', 'list', '--json', ...dir])).out));
    expect(all.map((m) => [m.name, m.named, m.wallet_id])).toEqual([
      ['Bank books', true, null],
      ['Bank books, Berlin', true, null],
    ]);
    // The layout's last used is proposed.
    expect((await reconcile()).err).toMatch(/^Mapping: the saved mapping "Bank books, Berlin"/);

    // edit --map: checked against the layout, naming the field; a good one replaces the mapping.
    const edited = join(svc.dataDir, 'edited.json');
    const fileMapping = JSON.parse(readFileSync(MAP, 'utf8')) as { columns: Record<string, string> };
    writeFileSync(edited, JSON.stringify({ ...fileMapping, columns: { ...fileMapping.columns, fee: 'Gas' } }));
    const bad = await nps(['mappings', 'edit', 'Bank books, Berlin', '--map', edited, ...dir]);
    expect(bad).toMatchObject({ code: 1, err: expect.stringMatching(/^error 1002: mapping\.columns\.fee: no column "Gas" in the file/) });
    const { fee: _fee, ...noFee } = fileMapping.columns;
    writeFileSync(edited, JSON.stringify({ ...fileMapping, columns: noFee }));
    expect((await nps(['mappings', 'edit', 'Bank books, Berlin', '--map', edited, ...dir])).code).toBe(0);
    expect(JSON.parse((await nps(['mappings', 'show', 'Bank books, Berlin', ...dir])).out).columns.fee).toBeUndefined();
    const moved = await nps(['mappings', 'edit', 'Bank books, Berlin', '--wallet', 'Nobody', ...dir]);
    expect(moved.err).toMatch(/^WALLET: no wallet is named "Nobody"/);

    const unknown = await reconcile('--map', 'Nope');
    expect(unknown).toMatchObject({
      code: 1,
      err: '--map: "Nope" is neither a file nor a saved mapping (saved: "Bank books", "Bank books, Berlin")\n',
    });
    // A saved mapping another layout does not fit: refused, saying which mapping was used.
    const otherLayout = await nps([
      'reconcile',
      join(ROOT, 'test/fixtures/books/in-out-2026-01.csv'),
      '--map',
      'Bank books, Berlin',
      ...dir,
    ]);
    expect(otherLayout.err).toMatch(
      /^error 1002: mapping\.columns\.\w+: no column "[^"]+" in the file .*\(the saved mapping "Bank books, Berlin" was used: give --map to read the books with another\)\n$/,
    );
    const removed = await nps(['mappings', 'remove', 'bank books, berlin', ...dir]);
    expect(removed.out).toMatch(/^Removed:\nBank books, Berlin\n/);
    expect((await nps(['mappings', 'show', 'Bank books, Berlin', ...dir])).err).toBe(
      'error 1002: mapping: no saved mapping is named "Bank books, Berlin"\n',
    );
    expect((await nps(['mappings', 'frobnicate', ...dir])).err).toMatch(/^npm run nps -- mappings list/);
  }, 120_000);

  it('goes through the service running on the data folder (its /local/rpc door), as every command does', async () => {
    const other = tempService();
    const server = await startServer(other, { port: 0, log: () => {} });
    try {
      const at = ['--data-dir', other.dataDir];
      expect((await nps(['import', LEDGER, ...at])).code).toBe(0);
      const run = await nps(['reconcile', BOOKS, '--map', MAP, '--save-map', 'Bank', '--json', ...at]);
      expect(run.err).toBe('Mapping saved as "Bank"\n');
      expect((await nps(['mappings', 'rename', 'Bank', 'Bank books', ...at])).code).toBe(0);
      // Written by the running service into its store: it answers the new name.
      const saved = await other.invoke('books-mapping-get', { mapping: 'bank books' }, { actor: 'ui' });
      expect(saved).toMatchObject({ name: 'Bank books', named: true, headers: expect.arrayContaining(['Tx hash']) });
      expect(claims((await nps(['reconcile', BOOKS, '--json', ...at])).out)).toEqual(claims(run.out));
    } finally {
      await server.close();
      other.dispose();
    }
  }, 120_000);
});
