import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import type { TicketSeen } from '../../../shared/tickets';
import { failure, tempService } from '../test-support';
import { openClaimTicket } from './fixtures.test-support';
import { setTicketsStatus, ticketEvents } from './repository';

/*
 * Optimistic concurrency on ticket changes: a change carries what its caller saw (status and
 * version), and is refused, with nothing written, when the ticket changed since, naming who changed
 * it, to what and when.
 */

const T = Date.UTC(2026, 0, 2, 3, 4, 5);
let clock = T;
const svc = tempService({ now: () => clock });
const ui = { actor: 'ui' as const };
const cli = { actor: 'cli' as const };

afterAll(() => svc.dispose());
beforeEach(() => {
  clock += 1000;
});

let subjects = 0;
/** A Pending exception (a claim the ledger lacks), opened as a books run opens one. */
function open(subject = `claim-${++subjects}`): string {
  return openClaimTicket(svc.ctx.db, { subject, at: clock, amount: '1.5' });
}

async function seenOf(id: string): Promise<TicketSeen> {
  const t = await svc.invoke('ticket-get', { ticket_id: id }, ui);
  return { status: t.status, version: t.version };
}

const as = (name: string) => svc.invoke('app-user-set', { name }, ui);

describe('one ticket', () => {
  test('resolved by one window, the other, acting on what it saw, is told who changed it, to what and when; nothing is written', async () => {
    const id = open();
    const seen = await seenOf(id);
    expect(seen).toEqual({ status: 'Pending', version: 0 });

    await as('Anna');
    const resolvedAt = clock;
    const done = await svc.invoke('ticket-transition', { ticket_id: id, to: 'Resolved', note: 'booked late', seen }, ui);
    expect(done).toMatchObject({ status: 'Resolved', version: 1 });

    clock += 1000;
    await as('Ben');
    const err = await failure(svc.invoke('ticket-transition', { ticket_id: id, to: 'Dismissed', note: 'duplicate', seen }, ui));
    expect(err.code).toBe(3006);
    expect(err.httpStatus).toBe(409);
    expect(err.message).toBe(
      `ticket_id: the ticket changed since you saw it, so it was not changed: Anna resolved it at ${new Date(resolvedAt).toISOString().replace('T', ' ').replace('.000Z', ' UTC')}; it is Resolved now. Look again and decide`,
    );
    const after = await svc.invoke('ticket-get', { ticket_id: id }, ui);
    expect(after).toMatchObject({ status: 'Resolved', version: 1, updated_at: resolvedAt });
    expect(after.events.map((e) => [e.kind, e.to_status, e.actor])).toEqual([
      ['opened', 'Pending', 'ui'],
      ['status', 'Resolved', 'Anna'],
    ]);
  });

  test('the same status but a newer version (a later finding updated it) is refused too, and says what updated it', async () => {
    const subject = 'claim-updated';
    const id = open(subject);
    const seen = await seenOf(id);
    clock += 1000;
    // The same books run again: the Pending exception is updated in place.
    expect(open(subject)).toBe(id);
    const err = await failure(svc.invoke('ticket-transition', { ticket_id: id, to: 'Resolved', note: 'checked', seen }, ui));
    expect(err.code).toBe(3006);
    expect(err.message).toMatch(/a newer claim updated it \(the app\) at .*; it is Pending now/);
    expect(await seenOf(id)).toEqual({ status: 'Pending', version: 1 });
  });

  test('what it saw, still so: the change is made and the version moves on', async () => {
    const id = open();
    const t = await svc.invoke('ticket-transition', { ticket_id: id, to: 'Dismissed', note: 'noise', seen: await seenOf(id) }, ui);
    expect(t).toMatchObject({ status: 'Dismissed', version: 1 });
    const back = await svc.invoke('ticket-transition', { ticket_id: id, to: 'Pending', seen: { status: 'Dismissed', version: 1 } }, ui);
    expect(back).toMatchObject({ status: 'Pending', version: 2 });
  });

  test('the command line, which reads and changes at once, need not say what it saw', async () => {
    const id = open();
    await svc.invoke('ticket-transition', { ticket_id: id, to: 'Resolved', note: 'x' }, ui);
    const t = await svc.invoke('ticket-transition', { ticket_id: id, to: 'Pending' }, cli);
    expect(t).toMatchObject({ status: 'Pending', version: 2 });
  });
});

describe('many tickets at once', () => {
  test('one of three changed since the queue was shown: none changes, and the refusal names that one and who changed it', async () => {
    const ids = [open(), open(), open()];
    const seen = Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await seenOf(id)] as const)));
    await as('Anna');
    await svc.invoke('ticket-transition', { ticket_id: ids[1]!, to: 'Resolved', note: 'paid' }, ui);

    await as('Ben');
    const err = await failure(svc.invoke('tickets-transition', { ticket_ids: ids, to: 'Dismissed', note: 'month closed', seen }, ui));
    expect(err.code).toBe(3006);
    expect(err.message).toMatch(
      new RegExp(`^ticket_ids: 1 of 3 tickets changed since you saw them, so none was changed: ticket ${ids[1]}: Anna resolved it at `),
    );
    expect(err.message).not.toContain(ids[0]!);
    for (const id of [ids[0]!, ids[2]!]) {
      expect(await seenOf(id)).toEqual({ status: 'Pending', version: 0 });
      expect(ticketEvents(svc.ctx.db, id)).toHaveLength(1);
    }
    expect(await seenOf(ids[1]!)).toEqual({ status: 'Resolved', version: 1 });
  });

  test('with what each was seen as, still so, all change', async () => {
    const ids = [open(), open()];
    const seen = Object.fromEntries(await Promise.all(ids.map(async (id) => [id, await seenOf(id)] as const)));
    expect(await svc.invoke('tickets-transition', { ticket_ids: ids, to: 'Dismissed', note: 'noise', seen }, ui)).toEqual({ changed: 2 });
    for (const id of ids) expect(await seenOf(id)).toEqual({ status: 'Dismissed', version: 1 });
  });

  test('a ticket seen that the call does not change is refused by its field', async () => {
    const [a, b] = [open(), open()];
    const err = await failure(
      svc.invoke(
        'tickets-transition',
        { ticket_ids: [a], to: 'Dismissed', note: 'n', seen: { [b]: { status: 'Pending', version: 0 } } },
        ui,
      ),
    );
    expect(err.code).toBe(1002);
    expect(err.message).toBe(`seen.${b}: is not one of ticket_ids`);
  });
});

describe('the check and the write are one statement', () => {
  test('a row that moved between the read and the write is not written, and the rows before it in the batch are rolled back', () => {
    const [a, b] = [open(), open()];
    // b moves on after the caller read it at version 0.
    expect(setTicketsStatus(svc.ctx.db, [{ ticket_id: b, from: 'Pending', version: 0 }], 'Resolved', 'first', 'Anna', clock)).toEqual([]);
    const stale = setTicketsStatus(
      svc.ctx.db,
      [
        { ticket_id: a, from: 'Pending', version: 0 },
        { ticket_id: b, from: 'Pending', version: 0 },
      ],
      'Dismissed',
      'second',
      'Ben',
      clock,
    );
    expect(stale).toEqual([b]);
    expect(ticketEvents(svc.ctx.db, a)).toHaveLength(1);
    const row = svc.ctx.db.$client.prepare('SELECT status, version FROM tickets WHERE ticket_id = ?');
    expect(row.get(a)).toEqual({ status: 'Pending', version: 0 });
    expect(row.get(b)).toEqual({ status: 'Resolved', version: 1 });
  });
});
