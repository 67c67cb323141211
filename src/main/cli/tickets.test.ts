import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TicketDetail, TicketSummary } from '../../shared/tickets';
import { tempService } from '../service/test-support';
import { nps } from './nps.test-support';

const SAMPLES = join(import.meta.dirname, '../../../resources/samples');
/** Each command starts a process of its own (seconds on a busy 2-core machine). */
const CLI_TIMEOUT = 240_000;

describe('npm run nps -- tickets', () => {
  const svc = tempService();
  svc.close();
  afterAll(() => svc.dispose());
  const dir = ['--data-dir', svc.dataDir];
  const list = async (...filters: string[]) => {
    const r = await nps(['tickets', 'list', '--json', ...filters, ...dir]);
    expect(r.err).toBe('');
    const page = JSON.parse(r.out) as { total: number; list: unknown[] };
    return { total: page.total, list: TicketSummary.array().parse(page.list) };
  };

  it(
    'lists the queue a reconciliation opened, by its filters; dismisses by filter with a reason, reopens, resolves one',
    async () => {
      expect((await nps(['import', join(SAMPLES, 'native-ledger.csv'), ...dir])).code).toBe(0);
      const WALLET = '7b9e4a10-2c3d-4e5f-8a6b-0c1d2e3f4a5b';
      expect((await nps(['wallets', 'rename', WALLET, 'Treasury', ...dir])).code).toBe(0);
      const books = join(SAMPLES, 'books/books-2026-01.csv');
      const run = await nps(['reconcile', books, '--from', '2026-01-01', '--to', '2026-01-31', ...dir]);
      const runId = /Run (\S+)\.$/m.exec(run.out)![1]!;
      // The sample books: 5 mismatched, 1 not in the ledger, 14 ledger records nobody booked.
      expect((await list()).total).toBe(20);
      expect((await list('--kind', 'not_in_books')).total).toBe(14);
      expect((await list('--kind', 'mismatch', '--run', runId, '--status', 'pending')).total).toBe(5);
      // A wallet by its name or its ID: the same tickets, all of that wallet.
      const byName = await list('--wallet', 'treasury');
      expect(byName.total).toBeGreaterThan(0);
      expect(byName.total).toBeLessThan(20);
      expect(byName.list.every((t) => t.wallet_id === WALLET)).toBe(true);
      expect((await list('--wallet', WALLET)).total).toBe(byName.total);
      expect((await list('--run', 'no-such-run')).total).toBe(0);
      expect((await list('--search', 'WD-2026-09999')).list.map((t) => t.kind)).toEqual(['not_in_ledger']);
      const tron = await list('--chain', 'TRON', '--token', 'TRON_USDT');
      expect(tron.total).toBeGreaterThan(0);
      expect(tron.list.every((t) => t.chain_id === 'TRON' && t.token_id === 'TRON_USDT')).toBe(true);

      const human = await nps(['tickets', 'list', '--kind', 'mismatch', '--limit', '2', ...dir]);
      expect(human.out).toMatch(/^[0-9a-f-]{36} {2}Pending {4}Mismatched {10}/);
      expect(human.out.trimEnd().split('\n')).toHaveLength(3);
      expect(human.out).toMatch(/\n5 tickets; showing 2 \(--limit N for more\)\.\n$/);

      // Dismiss by filter: a reason is required, and without a terminal --yes; nothing changes until then.
      const noReason = await nps(['tickets', 'dismiss', '--kind', 'not_in_books', ...dir]);
      expect(noReason).toMatchObject({
        code: 1,
        err: "tickets dismiss: --reason is required: say why (every ticket's history keeps it)\n",
      });
      const unconfirmed = await nps(['tickets', 'dismiss', '--kind', 'not_in_books', '--reason', 'booked in February', ...dir]);
      expect(unconfirmed.code).toBe(1);
      expect(unconfirmed.err).toMatch(/^tickets dismiss: 14 tickets match; give --yes to dismiss them .*Nothing was changed\.\n$/);
      const wholeQueue = await nps(['tickets', 'dismiss', '--reason', 'all of it', '--yes', ...dir]);
      expect(wholeQueue.code).toBe(1);
      expect(wholeQueue.err).toMatch(/^tickets dismiss: give ticket IDs, or filters/);
      expect((await list('--status', 'Pending')).total).toBe(20);

      const dismissed = await nps(['tickets', 'dismiss', '--kind', 'not_in_books', '--reason', 'booked in February', '--yes', ...dir]);
      expect(dismissed).toMatchObject({ code: 0, out: 'Dismissed 14 tickets.\n' });
      expect((await list('--status', 'Dismissed')).total).toBe(14);
      expect((await list('--status', 'Pending')).total).toBe(6);
      const one = (await list('--status', 'Dismissed', '--limit', '1')).list[0]!;
      const shown = TicketDetail.parse(JSON.parse((await nps(['tickets', 'show', one.ticket_id, '--json', ...dir])).out));
      expect(shown.events.at(-1)).toMatchObject({
        kind: 'status',
        from_status: 'Pending',
        to_status: 'Dismissed',
        note: 'booked in February',
      });
      // The same filter again selects no Pending ticket: nothing to do, said so.
      const again = await nps(['tickets', 'dismiss', '--kind', 'not_in_books', '--reason', 'again', '--yes', ...dir]);
      expect(again.out).toBe('No Pending ticket matches these filters: nothing changed.\n');

      // Reopen one by its ID with a reason; resolve two by ID (every one or none).
      const reopened = await nps(['tickets', 'reopen', one.ticket_id, '--reason', 'the February books lack it', ...dir]);
      expect(reopened).toMatchObject({ code: 0, out: `Reopened ticket ${one.ticket_id} (Not in books).\n` });
      const mismatches = (await list('--kind', 'mismatch')).list.map((t) => t.ticket_id);
      const refused = await nps(['tickets', 'resolve', mismatches[0]!, 'ffffffff-ffff-4fff-8fff-ffffffffffff', '--reason', 'x', ...dir]);
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(/^error \d+: ticket_ids\[1\]: no ticket ffffffff/);
      expect((await list('--kind', 'mismatch', '--status', 'Pending')).total).toBe(5);
      const resolved = await nps(['tickets', 'resolve', mismatches[0]!, mismatches[1]!, '--reason', 'fee corrected in the books', ...dir]);
      expect(resolved.out).toBe('Resolved 2 tickets.\n');
      const text = (await nps(['tickets', 'show', mismatches[0]!, ...dir])).out;
      expect(text).toMatch(/^Ticket [0-9a-f-]{36}: Mismatched, Resolved\n/);
      expect(text).toMatch(/Pending -> Resolved by the command line: fee corrected in the books\n$/);

      // Bulk reopen by filter takes every Resolved or Dismissed ticket the filter selects.
      const back = await nps(['tickets', 'reopen', '--run', runId, '--yes', '--json', ...dir]);
      expect(JSON.parse(back.out)).toMatchObject({ changed: 15 });
      expect((await list('--status', 'Pending')).total).toBe(20);

      // Refusals name the flag and the closest value.
      expect(await nps(['tickets', 'list', '--kind', 'mismatches', ...dir])).toMatchObject({
        code: 1,
        err: '--kind: "mismatches" is not one of mismatch, not_in_ledger, not_in_books, duplicate, balance, onchain; did you mean mismatch?\n',
      });
      expect((await nps(['tickets', 'list', '--wallet', 'Nobody', ...dir])).err).toMatch(/^WALLET: no wallet is named "Nobody"/);
    },
    CLI_TIMEOUT,
  );
});
