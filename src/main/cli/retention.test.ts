import { afterAll, describe, expect, it } from 'vitest';
import { RetentionApplied, RetentionStatus } from '../../shared/retention';
import { insertRecords } from '../service/reconcile/fixtures.test-support';
import { retentionSettled } from '../service/reconcile/retention';
import { tempService } from '../service/test-support';
import { nps } from './nps.test-support';

const W = '11111111-1111-4111-8111-111111111111';
const tx = (i: number) => `aaaaaaaa-0000-4000-8000-${String(i).padStart(12, '0')}`;
const DAY = 86_400_000;

describe('npm run nps -- retention', () => {
  // Three runs made 100 days ago (the CLI's clock is the real one): the first with a mismatch that opens a ticket, then two of matches.
  const svc = tempService({ now: () => Date.now() - 100 * DAY });
  afterAll(() => svc.dispose());
  const dir = ['--data-dir', svc.dataDir];

  it('shows the policy and the store, refuses a bad value naming the field, sets the policy and applies it', async () => {
    insertRecords(
      svc.ctx.db,
      [0, 1, 2].map((i) => ({ transaction_id: tx(i), wallet_id: W, amount: '100' })),
    );
    for (const amount of ['5', '100', '100'])
      await svc.invoke(
        'reconcile-verify-txs',
        { txs: [0, 1, 2].map((i) => ({ transaction_id: tx(i), amount: i === 2 ? amount : '100' })) },
        { actor: 'ui' },
      );
    await retentionSettled(svc.ctx);
    svc.close();

    const show = await nps(['retention', ...dir]);
    expect(show.code).toBe(0);
    expect(show.out).toContain('Policy: keep the runs of the last 90 days and at least the last 100 runs');
    expect(show.out).toContain('Stored: 3 runs, 9 items.');
    expect(show.out).toContain('The policy removes now: 0 runs and 0 items.');

    expect(await nps(['retention', 'set', '--days', '0', ...dir])).toMatchObject({
      code: 1,
      err: 'error 1002: days: must be an integer from 1 to 3650\n',
    });
    expect(await nps(['retention', 'set', '--runs', 'many', ...dir])).toMatchObject({
      code: 1,
      err: 'error 1002: runs: must be an integer from 0 to 1000000\n',
    });
    expect((await nps(['retention', 'set', ...dir])).code).toBe(1);

    const set = await nps(['retention', 'set', '--days', '30', '--runs', '1', ...dir]);
    expect(set.code).toBe(0);
    // The newest run stays whole; the other two lose their 6 items but the one with a ticket, and the run without one goes.
    expect(set.out).toContain('It removes now: 1 run and 5 items');
    const status = RetentionStatus.parse(JSON.parse((await nps(['retention', 'show', '--json', ...dir])).out));
    expect(status).toMatchObject({ policy: { days: 30, runs: 1 }, runs: 3, items: 9, would_remove: { runs: 1, items: 5 } });

    const apply = await nps(['retention', 'apply', '--json', ...dir]);
    expect(apply.code).toBe(0);
    const applied = RetentionApplied.parse(JSON.parse(apply.out));
    expect(applied).toMatchObject({ removed: { runs: 1, items: 5 }, kept_for_tickets: { runs: 1, items: 1 }, vacuum: 'none' });
    const after = await nps(['retention', ...dir]);
    expect(after.out).toContain('Stored: 2 runs, 4 items.');
    expect((await nps(['retention', 'apply', ...dir])).out).toMatch(/^Nothing to remove/);
  }, 90_000);
});
