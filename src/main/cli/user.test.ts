import { afterAll, describe, expect, it } from 'vitest';
import { insertRecords } from '../service/reconcile/fixtures.test-support';
import { tempService } from '../service/test-support';
import { nps } from './nps.test-support';

const W = '11111111-1111-4111-8111-111111111111';
const TX = 'aaaaaaaa-0000-4000-8000-000000000001';

describe('npm run nps -- user', () => {
  const svc = tempService();
  afterAll(() => svc.dispose());
  const dir = ['--data-dir', svc.dataDir];

  it('shows that no one is named, names the user, refuses an empty name naming the field; ticket events then name the user', async () => {
    // A mismatch ticket to act on, made before the CLI takes the store.
    insertRecords(svc.ctx.db, [{ transaction_id: TX, wallet_id: W, amount: '100' }]);
    const [verdict] = await svc.invoke('reconcile-verify-txs', { txs: [{ transaction_id: TX, amount: '99' }] }, { actor: 'ui' });
    const ticketId = verdict!.ticket_id!;
    svc.close();

    expect(await nps(['user', ...dir])).toMatchObject({
      code: 0,
      out: 'No user named yet: ticket events say "the command line" or "the app". Set one: nps user NAME\n',
    });
    expect(await nps(['user', '  ', ...dir])).toMatchObject({ code: 1, err: 'error 1002: name: must not be empty\n' });
    expect(await nps(['user', 'Ada Lovelace', ...dir])).toMatchObject({
      code: 0,
      out: 'Acting as Ada Lovelace: ticket events from the desktop app and the CLI name this user.\n',
    });
    expect(await nps(['user', ...dir])).toMatchObject({ code: 0, out: 'Acting as Ada Lovelace.\n' });
    expect(JSON.parse((await nps(['user', '--json', ...dir])).out)).toEqual({ name: 'Ada Lovelace' });
    expect((await nps(['user', 'a', 'b', ...dir])).code).toBe(1);

    const again = tempService({ dataDir: svc.dataDir });
    try {
      await again.invoke('ticket-transition', { ticket_id: ticketId, to: 'Dismissed', note: 'rounding in the books' }, { actor: 'ui' });
      const events = (await again.invoke('ticket-get', { ticket_id: ticketId }, { actor: 'ui' })).events;
      expect(events.at(-1)).toMatchObject({ kind: 'status', to_status: 'Dismissed', actor: 'Ada Lovelace', note: 'rounding in the books' });
    } finally {
      again.close();
    }
  }, 60_000);
});
