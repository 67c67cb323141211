import { strictAnswers } from '../http/answers.test-support';
import { afterAll, beforeEach, describe, expect, test } from 'vitest';
import { buildServer } from '../http/server';
import { signedInject } from '../http/signed.test-support';
import { insertRecords } from '../reconcile/fixtures.test-support';
import { tempService } from '../test-support';
import { transitionError } from './rules';

const W1 = '11111111-1111-4111-8111-111111111111';
const W2 = '22222222-2222-4222-8222-222222222222';
const TX1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const TX2 = 'aaaaaaaa-0000-4000-8000-000000000002';
const T = Date.UTC(2026, 0, 2, 3, 4, 5);

let clock = T;
const svc = tempService({ now: () => clock });
const app = buildServer(svc, { log: () => {}, rateLimit: false });
strictAnswers(app);
insertRecords(svc.ctx.db, [
  { transaction_id: TX1, wallet_id: W1, amount: '100.25', to: '0xabc', created_at: T },
  { transaction_id: TX2, wallet_id: W2, amount: '5', created_at: T },
]);
let secret = '';
const ui = { actor: 'ui' as const };

afterAll(async () => {
  await app.close();
  svc.dispose();
});

beforeEach(async () => {
  clock += 1000;
  if (!secret) secret = (await svc.invoke('keys-create', { label: 't', wallets: null }, { actor: 'cli' })).api_secret;
});

async function verify(txs: object[]) {
  const res = await signedInject(app, secret, { method: 'POST', url: '/nps/bill/verify/txs', body: { txs } }, clock);
  expect(res.body.status).toBe(0);
  return res.body.data as { result: boolean; ticket_id: string | null }[];
}

const lookup = (walletId: string, ticketId: string) =>
  signedInject(app, secret, { method: 'GET', url: `/nps/ticket?wallet_id=${walletId}&ticket_id=${ticketId}` }, clock);

describe('rules', () => {
  test.each([
    ['Pending', 'Resolved', null],
    ['Pending', 'Dismissed', null],
    ['Resolved', 'Pending', null],
    ['Dismissed', 'Pending', null],
    ['Resolved', 'Dismissed', /only go to Pending/],
    ['Dismissed', 'Resolved', /only go to Pending/],
    ['Pending', 'Pending', /already Pending/],
  ] as const)('%s -> %s', (from, to, error) => {
    const e = transitionError(from, to);
    if (error === null) expect(e).toBeNull();
    else expect(e).toMatch(error);
  });
});

describe('ticket lifecycle', () => {
  test('open, update, resolve, a full match leaves it alone, reopen, events kept', async () => {
    // Open: a found record that does not match.
    const [first] = await verify([{ transaction_id: TX1, amount: '100.5' }]);
    const ticketId = first!.ticket_id!;
    expect(first!.result).toBe(false);
    let t = await svc.invoke('ticket-get', { ticket_id: ticketId }, ui);
    expect(t).toMatchObject({
      status: 'Pending',
      wallet_id: W1,
      transaction_id: TX1,
      abnormals: 'amount',
      abnormal_fields: ['amount'],
      created_at: clock,
      updated_at: clock,
    });
    expect(t.desc).toBe('amount: claimed 100.5, recorded 100.25 (off by 0.25, tolerance 0.001)');
    expect(t.claimed).toEqual({ transaction_id: TX1, amount: '100.5' });
    expect(t.record).toMatchObject({ transaction_id: TX1, amount: '100.25' });
    const opened = clock;

    // Update: another mismatching claim about the same transaction lands on the same Pending ticket.
    clock += 1000;
    const [second] = await verify([{ transaction_id: TX1, amount: '100.25', to: '0xdef', time: T / 1000 + 60 }]);
    expect(second!.ticket_id).toBe(ticketId);
    t = await svc.invoke('ticket-get', { ticket_id: ticketId }, ui);
    expect(t).toMatchObject({ status: 'Pending', abnormals: 'to,time', created_at: opened, updated_at: clock });
    expect(t.desc).toMatch(/^to: claimed 0xdef, recorded 0xabc; time: claimed 2026-01-02T03:05:05Z, recorded 2026-01-02T03:04:05Z/);

    // Resolve, with a note.
    clock += 1000;
    t = await svc.invoke('ticket-transition', { ticket_id: ticketId, to: 'Resolved', note: 'bank fee booked twice' }, ui);
    expect(t.status).toBe('Resolved');

    // Resolved cannot be dismissed; Resolved cannot be resolved again.
    await expect(svc.invoke('ticket-transition', { ticket_id: ticketId, to: 'Dismissed', note: 'x' }, ui)).rejects.toMatchObject({
      code: 1002,
    });
    await expect(svc.invoke('ticket-transition', { ticket_id: ticketId, to: 'Resolved', note: 'x' }, ui)).rejects.toMatchObject({
      code: 1002,
    });

    // A full match changes nothing on any ticket.
    clock += 1000;
    const [match] = await verify([{ transaction_id: TX1, amount: '100.25' }]);
    expect(match).toMatchObject({ result: true, ticket_id: null });

    // A new mismatch while the ticket is resolved opens a new one.
    clock += 1000;
    const [third] = await verify([{ transaction_id: TX1, amount: 1 }]);
    expect(third!.ticket_id).not.toBe(ticketId);
    // Dismissing needs a reason, and nothing changes without one.
    await expect(svc.invoke('ticket-transition', { ticket_id: third!.ticket_id!, to: 'Dismissed' }, ui)).rejects.toMatchObject({
      code: 1002,
      message: expect.stringContaining('note: is required when resolving or dismissing'),
    });
    await svc.invoke('ticket-transition', { ticket_id: third!.ticket_id!, to: 'Dismissed', note: 'test transfer' }, ui);

    // Reopen the first.
    clock += 1000;
    t = await svc.invoke('ticket-transition', { ticket_id: ticketId, to: 'Pending', note: 'auditor disagrees' }, ui);
    expect(t.status).toBe('Pending');
    expect(t.events.map((e) => [e.kind, e.from_status, e.to_status, e.note])).toEqual([
      ['opened', null, 'Pending', 'amount: claimed 100.5, recorded 100.25 (off by 0.25, tolerance 0.001)'],
      ['updated', 'Pending', 'Pending', expect.stringMatching(/^to: claimed 0xdef/)],
      ['status', 'Pending', 'Resolved', 'bank fee booked twice'],
      ['status', 'Resolved', 'Pending', 'auditor disagrees'],
    ]);
    expect(t.events[0]!.actor).toMatch(/^api:[0-9a-f]{64}$/);
    expect(t.events[2]!.actor).toBe('ui');

    // After the reopen, a mismatch updates the reopened ticket again.
    clock += 1000;
    const [fourth] = await verify([{ transaction_id: TX1, amount: 2 }]);
    expect(fourth!.ticket_id).toBe(ticketId);

    const list = await svc.invoke('tickets-list', { page: 1, page_size: 10, wallet_id: W1 }, ui);
    expect(list.total).toBe(2);
    expect(list.list[0]!.ticket_id).toBe(ticketId);
    expect((await svc.invoke('tickets-list', { page: 1, page_size: 10, status: 'Dismissed' }, ui)).list.map((x) => x.ticket_id)).toEqual([
      third!.ticket_id,
    ]);
  });

  test('two mismatching claims about one transaction in one request share one ticket; not found opens none', async () => {
    const data = await verify([
      { transaction_id: TX2, amount: 6 },
      { transaction_id: TX2, amount: 7 },
      { request_id: 'nowhere', amount: 1 },
    ]);
    expect(data[0]!.ticket_id).not.toBeNull();
    expect(data[1]!.ticket_id).toBe(data[0]!.ticket_id);
    expect(data[2]!.ticket_id).toBeNull();
    const t = await svc.invoke('ticket-get', { ticket_id: data[0]!.ticket_id! }, ui);
    expect(t.desc).toMatch(/claimed 7,/);
    expect(t.events.map((e) => e.kind)).toEqual(['opened', 'updated']);
  });

  test('an unknown ticket: 3003', async () => {
    await expect(svc.invoke('ticket-get', { ticket_id: 'nope' }, ui)).rejects.toMatchObject({ code: 3003 });
  });
});

describe('GET /nps/ticket', () => {
  test('answers the ticket with Unix-second times', async () => {
    const [r] = await verify([{ transaction_id: TX2, amount: 9 }]);
    clock += 1;
    const res = await lookup(W2.toUpperCase(), r!.ticket_id!.toUpperCase());
    expect(res.body).toMatchObject({
      status: 0,
      msg: '',
      data: {
        ticket_id: r!.ticket_id,
        wallet_id: W2,
        transaction_id: TX2,
        status: 'Pending',
        abnormals: 'amount',
        created_at: expect.any(Number),
      },
    });
    const data = res.body.data as { created_at: number; updated_at: number; desc: string };
    expect(data.updated_at).toBe(Math.floor((clock - 1) / 1000));
    expect(Number.isInteger(data.created_at)).toBe(true);
    expect(data.desc).toMatch(/^amount: claimed 9, recorded 5/);
  });

  test("another wallet's ticket is 3003, exactly as a missing one", async () => {
    const [r] = await verify([{ transaction_id: TX2, amount: 10 }]);
    clock += 1;
    const other = await lookup(W1, r!.ticket_id!);
    clock += 1;
    const missing = await lookup(W1, 'cccccccc-cccc-4ccc-8ccc-cccccccccccc');
    expect(other.body).toMatchObject({ status: 3003, data: null });
    expect(other.http).toBe(404);
    expect(missing.body.status).toBe(3003);
    expect(other.body.msg.replace(r!.ticket_id!, 'X')).toBe(missing.body.msg.replace('cccccccc-cccc-4ccc-8ccc-cccccccccccc', 'X'));
  });

  test.each([
    ['wallet_id missing', 'ticket_id=cccccccc-cccc-4ccc-8ccc-cccccccccccc', /^wallet_id: is required/],
    ['ticket_id missing', `wallet_id=${W1}`, /^ticket_id: is required/],
    [
      'ticket_id repeated',
      `wallet_id=${W1}&ticket_id=cccccccc-cccc-4ccc-8ccc-cccccccccccc&ticket_id=cccccccc-cccc-4ccc-8ccc-cccccccccccc`,
      /^ticket_id: must be a string/,
    ],
    ['wallet_id not UUID-shaped', 'wallet_id=w1&ticket_id=cccccccc-cccc-4ccc-8ccc-cccccccccccc', /^wallet_id: must be UUID-shaped/],
    ['ticket_id not UUID-shaped', `wallet_id=${W1}&ticket_id=42`, /^ticket_id: must be UUID-shaped/],
  ])('%s: 1002', async (_name, query, msg) => {
    const res = await signedInject(app, secret, { method: 'GET', url: `/nps/ticket?${query}` }, clock);
    expect(res.http).toBe(400);
    expect(res.body).toMatchObject({ status: 1002, data: null });
    expect(res.body.msg).toMatch(msg);
  });

  test('unsigned: 2001', async () => {
    const res = await app.inject({ method: 'GET', url: `/nps/ticket?wallet_id=${W1}&ticket_id=cccccccc-cccc-4ccc-8ccc-cccccccccccc` });
    expect(res.json()).toMatchObject({ status: 2001, data: null });
  });
});
