import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallMeta } from '../context';
import { failure, tempService } from '../test-support';
import { runImport } from './import';
import { good, id, text } from './native-rows.test-support';

/*
 * Undo an import (issue 15): import, undo, and the store's records are what they were before it,
 * row for row; tickets are untouched unless their record went.
 */

const T = Date.UTC(2026, 1, 3, 4, 5, 6);
let clock = T;
let svc: ReturnType<typeof tempService>;
const cli: CallMeta = { actor: 'cli' };

beforeEach(async () => {
  clock = T;
  svc = tempService({ now: () => clock });
  await svc.invoke('app-user-set', { name: 'Ana Lima' }, cli);
});
afterEach(() => svc.dispose());

type Source = { name: string; text: string };
interface Via {
  workerMinBytes?: number;
  rebuildMinRows?: number;
}
async function importFile(source: Source, via: Via = {}) {
  clock += 60_000;
  const r = await runImport(svc.ctx, { source, dryRun: false, ...via });
  expect(r.import_id).not.toBeNull();
  return r;
}
const undo = (importId: string) => {
  clock += 60_000;
  return svc.invoke('import-undo', { import_id: importId }, cli);
};
const preview = (importId: string) => svc.invoke('import-undo-preview', { import_id: importId }, cli);

/** Every record, row for row (rowid too: the export's order), and every ticket with its events. */
function records(): unknown[] {
  return svc.ctx.db.$client.prepare('SELECT rowid, * FROM transactions ORDER BY rowid').all();
}
function tickets(): unknown[] {
  return svc.ctx.db.$client.prepare('SELECT * FROM tickets ORDER BY ticket_id').all();
}
function events(ticketId: string): { kind: string; from_status: string | null; to_status: string | null; note: string; actor: string }[] {
  return svc.ctx.db.$client
    .prepare('SELECT kind, from_status, to_status, note, actor, at FROM ticket_events WHERE ticket_id = ? ORDER BY id')
    .all(ticketId) as ReturnType<typeof events>;
}

/** A mismatch ticket on the record (a claim of a wrong amount). */
async function openTicket(n: number): Promise<string> {
  clock += 1000;
  const [r] = await svc.invoke('reconcile-verify-txs', { txs: [{ transaction_id: id(n), amount: '123456' }], shape: 'A' }, cli);
  expect(r!.ticket_id).not.toBeNull();
  return r!.ticket_id!;
}

const A = text(
  [1, 2, 3, 4, 5].map((n) => good(n)),
  'a.csv',
);
/** Updates records 2 and 4, leaves 3 as it is, adds 10 and 11. */
const B = text([good(2, { amount: '99' }), good(3), good(4, { status: 'Failed' }), good(10), good(11)], 'b.csv');

describe('undo an import', () => {
  it('removes the records it added, puts back the ones it updated, and dismisses the Pending tickets of the removed ones', async () => {
    await importFile(A);
    const before = records();
    const b = await importFile(B);
    expect(b).toMatchObject({ added: 2, updated: 2, unchanged: 1 });
    const onUpdated = await openTicket(2);
    const onAdded = await openTicket(10);
    const onAddedResolved = await openTicket(11);
    await svc.invoke('ticket-transition', { ticket_id: onAddedResolved, to: 'Resolved', note: 'booked late' }, cli);
    const untouched = await openTicket(5);
    const ticketsBefore = new Map((tickets() as { ticket_id: string }[]).map((t) => [t.ticket_id, t]));

    const shown = await preview(b.import_id!);
    expect(shown).toEqual({
      import_id: b.import_id,
      file_name: 'b.csv',
      finished_at: expect.any(Number),
      remove: 2,
      restore: 2,
      tickets: 1,
      blocked_by: [],
      undone_at: null,
      undone_by: null,
    });
    const done = await undo(b.import_id!);
    expect(done).toEqual({ ...shown, undone_at: clock, undone_by: 'Ana Lima' });

    expect(records()).toEqual(before);
    const after = new Map((tickets() as { ticket_id: string; status: string; updated_at: number }[]).map((t) => [t.ticket_id, t]));
    for (const kept of [onUpdated, onAddedResolved, untouched]) expect(after.get(kept)).toEqual(ticketsBefore.get(kept));
    // A change of the ticket like any other: a window that showed it Pending is told when it acts on it.
    const was = ticketsBefore.get(onAdded) as unknown as { version: number };
    expect(after.get(onAdded)).toEqual({ ...was, status: 'Dismissed', updated_at: clock, version: was.version + 1 });
    expect(events(onAdded).at(-1)).toEqual({
      kind: 'status',
      from_status: 'Pending',
      to_status: 'Dismissed',
      note: 'record removed: import b.csv undone',
      actor: 'Ana Lima',
      at: clock,
    });
    expect(events(onAddedResolved).map((e) => e.to_status)).toEqual(['Pending', 'Resolved']);

    const listed = await svc.invoke('imports-list', { page: 1, page_size: 20 }, cli);
    expect(listed.list.map((i) => [i.file_name, i.undone_at, i.undone_by])).toEqual([
      ['b.csv', clock, 'Ana Lima'],
      ['a.csv', null, null],
    ]);
    expect(await svc.invoke('import-get', { import_id: b.import_id! }, cli)).toMatchObject({ undone_at: clock, undone_by: 'Ana Lima' });

    // Once is all.
    for (const call of [undo, preview]) {
      const again = await failure(call(b.import_id!));
      expect(again.code).toBe(1002);
      expect(again.message).toBe(`import_id: import ${b.import_id} (b.csv) was already undone by Ana Lima`);
    }
    expect((await failure(undo('nope'))).message).toBe('import_id: no import "nope"');
  });

  it('is refused, changing nothing, while a later import that stands changed its records; undone in turn, both go', async () => {
    const a = await importFile(A);
    const b = await importFile(B);
    const c = await importFile(text([good(10, { amount: '7' }), good(12)], 'c.csv'));
    const aShown = await preview(a.import_id!);
    expect(aShown.blocked_by).toEqual([{ import_id: b.import_id, file_name: 'b.csv' }]);
    expect((await preview(b.import_id!)).blocked_by).toEqual([{ import_id: c.import_id, file_name: 'c.csv' }]);

    const state = [records(), tickets(), await svc.invoke('imports-list', { page: 1, page_size: 20 }, cli)];
    const refused = await failure(undo(b.import_id!));
    expect(refused.code).toBe(1002);
    expect(refused.message).toBe(`import_id: a later import changed records of b.csv: undo c.csv (import ${c.import_id}) first`);
    expect([records(), tickets(), await svc.invoke('imports-list', { page: 1, page_size: 20 }, cli)]).toEqual(state);

    await undo(c.import_id!);
    await undo(b.import_id!);
    expect(await undo(a.import_id!)).toMatchObject({ remove: 5, restore: 0, blocked_by: [] });
    expect(records()).toEqual([]);
  });

  it('re-importing the file after its undo imports it again (the unchanged re-import does not count an undone import)', async () => {
    await importFile(A);
    const before = records();
    const b = await importFile(B);
    await undo(b.import_id!);
    expect(await importFile(B)).toMatchObject({ added: 2, updated: 2, unchanged: 1 });

    // The same file twice, the first undone: the second import read it unchanged, but its records went with the first.
    const fresh = tempService({ now: () => clock });
    try {
      const first = await runImport(fresh.ctx, { source: A, dryRun: false });
      expect(await runImport(fresh.ctx, { source: A, dryRun: false })).toMatchObject({ added: 0, unchanged: 5 });
      await fresh.invoke('import-undo', { import_id: first.import_id! }, cli);
      expect(fresh.ctx.db.$client.prepare('SELECT count(*) FROM transactions').pluck().get()).toBe(0);
      expect(await runImport(fresh.ctx, { source: A, dryRun: false })).toMatchObject({ added: 5, unchanged: 0 });
    } finally {
      fresh.dispose();
    }
    expect(before).toHaveLength(5);
  });

  // A file of new rows first (so a large load into a ledger with records goes in bulk), then rows that meet records.
  const many = Array.from({ length: 400 }, (_, k) => good(1000 + k));
  const large = text([...many, good(2, { amount: '99' }), good(3), good(4, { status: 'Failed' })], 'large.csv');

  it.each([
    ['on the service thread, row by row', {}],
    ['on the import thread, in bulk (the records met are merged after the load)', { workerMinBytes: 0, rebuildMinRows: 1 }],
  ])('records what a large import replaced %s', async (_how, via: Via) => {
    await importFile(A);
    const before = records();
    const r = await importFile(large, via);
    expect(r).toMatchObject({ added: 400, updated: 2, unchanged: 1 });
    expect(
      svc.ctx.db.$client.prepare('SELECT transaction_id FROM import_replaced WHERE import_id = ? ORDER BY 1').pluck().all(r.import_id),
    ).toEqual([id(2), id(4)]);
    expect(await undo(r.import_id!)).toMatchObject({ remove: 400, restore: 2, tickets: 0 });
    expect(records()).toEqual(before);
    expect(svc.ctx.db.$client.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(svc.ctx.db.$client.pragma('foreign_key_check')).toEqual([]);
  });

  it('a preview of an import keeps nothing of what it would replace', async () => {
    await importFile(A);
    await runImport(svc.ctx, { source: B, dryRun: true });
    expect(svc.ctx.db.$client.prepare('SELECT count(*) FROM import_replaced').pluck().get()).toBe(0);
  });
});
