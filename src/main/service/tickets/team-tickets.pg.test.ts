import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ErrorCodes } from '../../../shared/errors';
import { openPostgres, type PgDb } from '../db/postgres';
import { startPostgres, type TestPostgres } from '../db/postgres.test-support';
import { tempService } from '../test-support';
import { postgresTicketStore } from './store-repository';

/*
 * Two desktops, each its own service and data folder, working one queue of tickets kept in one
 * PostgreSQL store, through the calls their windows make: a ticket one resolves reads resolved in
 * the other, and the other, acting on what it showed before, is refused (3006) with who changed
 * it; of the two resolving it at the same moment, one wins and the other is told. Each desktop
 * acts under its own named user.
 */

let server: TestPostgres;
const pools: PgDb[] = [];
const services: ReturnType<typeof tempService>[] = [];
let clock = Date.UTC(2026, 10, 27, 12);

beforeAll(async () => {
  server = await startPostgres();
  const url = await server.createDatabase('team');
  for (const name of ['Anna', 'Bob']) {
    const pool = await openPostgres(url);
    pools.push(pool);
    const svc = tempService({ now: () => clock, tickets: postgresTicketStore(pool) });
    await svc.invoke('app-user-set', { name }, { actor: 'ui' });
    services.push(svc);
  }
});

afterAll(async () => {
  for (const svc of services) svc.dispose();
  for (const pool of pools) await pool.$client.end();
  await server?.stop();
});

let serial = 0;
async function openTicket(): Promise<string> {
  const n = String(++serial).padStart(12, '0');
  const id = `0190bbbb-0000-7000-8000-${n}`;
  await postgresTicketStore(pools[0]!).open([
    {
      ticket_id: id,
      wallet_id: '3b7cf3c2-5632-4b92-909d-3fb64afebede',
      transaction_id: `a05ad1d2-066a-4953-8cc6-${n}`,
      chain_id: 'BSC_BNB',
      token_id: 'BSC_USDT',
      amount: '556.45709',
      abnormals: 'amount',
      desc: 'amount: claimed 556.45709, ledger 556.4571',
      claimed: '{"amount":"556.45709"}',
      run_id: null,
      actor: 'api:key1',
      at: clock,
    },
  ]);
  return id;
}

describe('two desktops over one PostgreSQL store of tickets', () => {
  test('one resolves; the other reads it resolved by Anna and, acting on what it showed, is told who changed it', async () => {
    const [anna, bob] = services as [ReturnType<typeof tempService>, ReturnType<typeof tempService>];
    const id = await openTicket();
    const shown = await bob.invoke('ticket-get', { ticket_id: id }, { actor: 'ui' });
    expect(shown).toMatchObject({ status: 'Pending', version: 0, amount: '556.45709' });
    clock += 60_000;
    await anna.invoke(
      'ticket-transition',
      { ticket_id: id, to: 'Resolved', note: 'paid', seen: { status: 'Pending', version: 0 } },
      { actor: 'ui' },
    );
    const now = await bob.invoke('ticket-get', { ticket_id: id }, { actor: 'ui' });
    expect(now).toMatchObject({ status: 'Resolved', version: 1 });
    expect(now.events.at(-1)).toMatchObject({ kind: 'status', to_status: 'Resolved', actor: 'Anna', note: 'paid' });
    const refused = bob.invoke(
      'ticket-transition',
      { ticket_id: id, to: 'Dismissed', note: 'a duplicate', seen: { status: shown.status, version: shown.version } },
      { actor: 'ui' },
    );
    await expect(refused).rejects.toMatchObject({ code: ErrorCodes.TICKET_CHANGED, message: expect.stringMatching(/Anna resolved it/) });
    expect(await anna.invoke('ticket-get', { ticket_id: id }, { actor: 'ui' })).toMatchObject({ status: 'Resolved', version: 1 });
  });

  test('both resolve one ticket at the same moment: one wins, the other is told who did (10 rounds)', async () => {
    const [anna, bob] = services as [ReturnType<typeof tempService>, ReturnType<typeof tempService>];
    for (let round = 0; round < 10; round++) {
      const id = await openTicket();
      const seen = { status: 'Pending' as const, version: 0 };
      const answers = await Promise.allSettled([
        anna.invoke('ticket-transition', { ticket_id: id, to: 'Resolved', note: 'paid', seen }, { actor: 'ui' }),
        bob.invoke('ticket-transition', { ticket_id: id, to: 'Dismissed', note: 'a duplicate', seen }, { actor: 'ui' }),
      ]);
      const won = answers.findIndex((a) => a.status === 'fulfilled');
      expect(answers.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
      const lost = answers[1 - won] as PromiseRejectedResult;
      const winner = won === 0 ? 'Anna resolved it' : 'Bob dismissed it';
      expect(lost.reason).toMatchObject({ code: ErrorCodes.TICKET_CHANGED, message: expect.stringContaining(winner) });
      const events = (await anna.invoke('ticket-get', { ticket_id: id }, { actor: 'ui' })).events;
      expect(events.map((e) => e.actor)).toEqual(['api:key1', won === 0 ? 'Anna' : 'Bob']);
    }
  }, 60_000);
});
