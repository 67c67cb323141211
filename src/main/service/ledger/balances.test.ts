import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BalanceCheck, BalancesAt, BalanceStatement, BalancesPeriod } from '../../../shared/balances';
import type { CallMeta } from '../context';
import { failure, tempService } from '../test-support';
import { periodBalances } from './balances';
import { evmHash, id, text } from './native-rows.test-support';
import { LEDGER_FIELDS } from '../../../shared/ledger';

const meta: CallMeta = { actor: 'ui' };
const ms = (iso: string) => Date.parse(iso);

let svc: ReturnType<typeof tempService>;
let W: string;
beforeEach(async () => {
  svc = tempService();
  W = (await svc.invoke('wallet-create', { name: 'Treasury' }, meta)).wallet_id;
});
afterEach(() => svc.dispose());

type Fields = Partial<Record<(typeof LEDGER_FIELDS)[number], string>>;
const line = (f: Fields) => LEDGER_FIELDS.map((k) => f[k] ?? '').join(',');

/**
 * The hand-computed ledger: one wallet, USDT on Ethereum (and one ETH deposit). "placed" is the
 * moment the rule places a record at: completed_at, else confirmed_at, else created_at.
 */
function ledger(): string[] {
  const usdt = { wallet_id: W, chain_id: 'ETH', token_id: 'ETH_USDT' };
  return [
    // 1. Deposit 1000, no fee, placed 2026-01-05: +1000
    line({
      ...usdt,
      transaction_id: id(1),
      type: 'Deposit',
      status: 'Completed',
      amount: '1000',
      hash: evmHash(1),
      created_at: String(ms('2026-01-05T10:00:00Z')),
      completed_at: String(ms('2026-01-05T10:05:00Z')),
    }),
    // 2. Deposit 250.5, fee 0.5, created 01-12 late, completed 01-13: +250.5 in, 0.5 fee, placed 2026-01-13
    line({
      ...usdt,
      transaction_id: id(2),
      type: 'Deposit',
      status: 'Completed',
      amount: '250.5',
      fee: '0.5',
      amount_actual: '250',
      hash: evmHash(2),
      created_at: String(ms('2026-01-12T23:50:00Z')),
      completed_at: String(ms('2026-01-13T00:10:00Z')),
    }),
    // 3. Withdrawal 300 (298.75 to the recipient + fee 1.25), confirmed 01-15, never marked completed: -300
    line({
      ...usdt,
      transaction_id: id(3),
      type: 'Withdrawal',
      status: 'Completed',
      amount: '300',
      fee: '1.25',
      amount_actual: '298.75',
      hash: evmHash(3),
      created_at: String(ms('2026-01-14T09:00:00Z')),
      confirmed_at: String(ms('2026-01-15T09:00:00Z')),
    }),
    // 4. Withdrawal 100 failed on chain (it has a hash): only its fee 2 goes: -2
    line({
      ...usdt,
      transaction_id: id(4),
      type: 'Withdrawal',
      status: 'Failed',
      amount: '100',
      fee: '2',
      hash: evmHash(4),
      created_at: String(ms('2026-01-20T12:00:00Z')),
    }),
    // 5. Withdrawal 50 Rejected: nothing
    line({
      ...usdt,
      transaction_id: id(5),
      type: 'Withdrawal',
      status: 'Rejected',
      amount: '50',
      fee: '1',
      created_at: String(ms('2026-01-22T12:00:00Z')),
    }),
    // 6. Deposit 75 Pending: nothing
    line({
      ...usdt,
      transaction_id: id(6),
      type: 'Deposit',
      status: 'Pending',
      amount: '75',
      hash: evmHash(6),
      created_at: String(ms('2026-01-25T12:00:00Z')),
    }),
    // 7. Deposit 40 Failed: nothing
    line({
      ...usdt,
      transaction_id: id(7),
      type: 'Deposit',
      status: 'Failed',
      amount: '40',
      hash: evmHash(7),
      created_at: String(ms('2026-01-26T12:00:00Z')),
    }),
    // 8. Withdrawal 10 with fee 0.1 and no amount_actual (an explorer's): 10 out + 0.1 fee: -10.1
    line({
      ...usdt,
      transaction_id: id(8),
      type: 'Withdrawal',
      status: 'Completed',
      amount: '10',
      fee: '0.1',
      hash: evmHash(8),
      created_at: String(ms('2026-01-28T12:00:00Z')),
    }),
    // 9. Withdrawal 20, created 01-31 23:30 UTC, completed 02-01 00:30 UTC: placed in February: -20
    line({
      ...usdt,
      transaction_id: id(9),
      type: 'Withdrawal',
      status: 'Completed',
      amount: '20',
      fee: '0',
      amount_actual: '20',
      hash: evmHash(9),
      created_at: String(ms('2026-01-31T23:30:00Z')),
      completed_at: String(ms('2026-02-01T00:30:00Z')),
    }),
    // 10. Deposit 0.000001 on 02-03: +0.000001
    line({
      ...usdt,
      transaction_id: id(10),
      type: 'Deposit',
      status: 'Completed',
      amount: '0.000001',
      hash: evmHash(10),
      created_at: String(ms('2026-02-03T08:00:00Z')),
    }),
    // 11. Withdrawal failed before the chain (no hash), fee 3 recorded: nothing
    line({
      ...usdt,
      transaction_id: id(11),
      type: 'Withdrawal',
      status: 'Failed',
      amount: '5',
      fee: '3',
      created_at: String(ms('2026-01-29T08:00:00Z')),
    }),
    // 12. ETH: Deposit 1.5 on 01-02: +1.5 ETH
    line({
      wallet_id: W,
      chain_id: 'ETH',
      token_id: 'ETH',
      transaction_id: id(12),
      type: 'Deposit',
      status: 'Completed',
      amount: '1.5',
      hash: evmHash(12),
      created_at: String(ms('2026-01-02T08:00:00Z')),
    }),
  ];
}

async function load() {
  const report = await svc.invoke('ledger-import', { source: text(ledger()) }, meta);
  expect(report.rejected).toBe(0);
  expect(report.added).toBe(12);
}

const at = async (when: string, time_zone?: string) =>
  BalancesAt.parse(await svc.invoke('balances-at', { wallet_id: W, at: when, ...(time_zone ? { time_zone } : {}) }, meta));
const usdtAt = async (when: string, zone?: string) => (await at(when, zone)).rows.find((r) => r.token_id === 'ETH_USDT')?.balance;

describe('balances from the ledger', () => {
  it('a hand-computed ledger gives the expected balance at three dates', async () => {
    await load();
    // 2026-01-12 (end of the day, UTC): record 1 only (record 2 completed on the 13th): 1000. ETH: 1.5
    const jan12 = await at('2026-01-12');
    expect(jan12.at).toBe(ms('2026-01-12T23:59:59.999Z'));
    expect(jan12.rows).toEqual([
      { wallet_id: W, chain_id: 'ETH', token_id: 'ETH', balance: '1.5' },
      { wallet_id: W, chain_id: 'ETH', token_id: 'ETH_USDT', balance: '1000' },
    ]);
    // 2026-01-31: 1000 + (250.5 - 0.5) - (298.75 + 1.25) - 2 - (10 + 0.1) = 937.9 (5, 6, 7, 11 move nothing; 9 is placed in February)
    expect(await usdtAt('2026-01-31')).toBe('937.9');
    // 2026-02-28: 937.9 - 20 + 0.000001 = 917.900001
    expect(await usdtAt('2026-02-28')).toBe('917.900001');
    // The day read in New York ends at 2026-02-01 04:59:59.999 UTC, after record 9: 937.9 - 20 = 917.9
    expect(await usdtAt('2026-01-31', 'America/New_York')).toBe('917.9');
    // A moment is taken as given: just before record 2 completed.
    expect(await usdtAt('2026-01-13T00:09:59Z')).toBe('1000');
    // Before any record: no rows.
    expect((await at('2025-12-31')).rows).toEqual([]);
  });

  it('a period has its opening, movements and closing; the statement a running balance', async () => {
    await load();
    const period = BalancesPeriod.parse(await svc.invoke('balances-period', { wallet_id: W, from: '2026-01-13', to: '2026-01-31' }, meta));
    expect(period.from).toBe(ms('2026-01-13T00:00:00Z'));
    expect(period.to).toBe(ms('2026-01-31T23:59:59.999Z'));
    // opening = balance at the end of 01-12 = 1000; in: 250.5 (2); out: 298.75 (3) + 10 (8) = 308.75;
    // fees: 0.5 (2) + 1.25 (3) + 2 (4) + 0.1 (8) = 3.85; closing: 1000 + 250.5 - 308.75 - 3.85 = 937.9
    expect(period.rows.find((r) => r.token_id === 'ETH_USDT')).toEqual({
      wallet_id: W,
      chain_id: 'ETH',
      token_id: 'ETH_USDT',
      opening: '1000',
      inflow: '250.5',
      outflow: '308.75',
      fees: '3.85',
      closing: '937.9',
      movements: 4,
    });
    // ETH did not move in the period: opening = closing = 1.5
    expect(period.rows.find((r) => r.token_id === 'ETH')).toMatchObject({ opening: '1.5', closing: '1.5', movements: 0 });
    // Closing of a period = opening of the next.
    const feb = BalancesPeriod.parse(await svc.invoke('balances-period', { from: '2026-02-01', to: '2026-02-28' }, meta));
    expect(feb.rows.find((r) => r.token_id === 'ETH_USDT')).toMatchObject({
      opening: '937.9',
      inflow: '0.000001',
      outflow: '20',
      fees: '0',
      closing: '917.900001',
      movements: 2,
    });

    const page2 = BalanceStatement.parse(
      await svc.invoke(
        'balance-movements',
        { wallet_id: W, token_id: 'ETH_USDT', from: '2026-01-01', to: '2026-01-31', page: 2, page_size: 2 },
        meta,
      ),
    );
    // Lines: 1 (+1000 = 1000), 2 (+250 = 1250), 3 (-300 = 950), 4 (-2 = 948), 8 (-10.1 = 937.9)
    expect(page2).toMatchObject({ opening: '0', closing: '937.9', total: 5, page: 2, page_size: 2 });
    expect(page2.list.map((m) => [m.transaction_id, m.change, m.balance])).toEqual([
      [id(3), '-300', '950'],
      [id(4), '-2', '948'],
    ]);
    expect(page2.list[0]).toMatchObject({ outflow: '298.75', fees: '1.25', at: ms('2026-01-15T09:00:00Z') });
    const all = BalanceStatement.parse(
      await svc.invoke('balance-movements', { wallet_id: W, token_id: 'ETH_USDT', from: '2026-01-13', to: '2026-02-28' }, meta),
    );
    expect(all.opening).toBe('1000');
    expect(all.list.map((m) => m.balance)).toEqual(['1250', '950', '948', '937.9', '917.9', '917.900001']);
  });

  it('periodBalances gives the report its rows, with the wallet name, and the fees apart as Balances show them', async () => {
    await load();
    const rows = periodBalances(svc.ctx.db, [W.toUpperCase()], ms('2026-01-13T00:00:00Z'), ms('2026-01-31T23:59:59.999Z'));
    expect(rows.find((r) => r.token_id === 'ETH_USDT')).toEqual({
      wallet_id: W,
      wallet_name: 'Treasury',
      chain_id: 'ETH',
      token_id: 'ETH_USDT',
      opening: '1000',
      inflow: '250.5',
      outflow: '308.75',
      fees: '3.85',
      closing: '937.9',
      movements: 4,
    });
    // Open ends: from the beginning, to the end of the ledger.
    expect(periodBalances(svc.ctx.db, null, null, null).find((r) => r.token_id === 'ETH_USDT')).toMatchObject({
      opening: '0',
      closing: '917.900001',
    });
  });

  it('a check against the statement opens a balance exception, and the same check again updates it', async () => {
    await load();
    const tickets = () =>
      svc.ctx.db.$client.prepare('SELECT ticket_id, subject, amount, "desc", claimed FROM tickets WHERE kind = \'balance\'').all() as {
        ticket_id: string;
        subject: string;
        amount: string;
        desc: string;
        claimed: string;
      }[];
    const check = { wallet_id: W, token_id: 'ETH_USDT', at: '2026-01-31', statement_balance: '938.15' };
    const first = BalanceCheck.parse(await svc.invoke('balance-check', check, meta));
    // 938.15 - 937.9 = 0.25
    expect(first).toMatchObject({ ledger_balance: '937.9', statement_balance: '938.15', difference: '0.25', chain_id: 'ETH' });
    expect(first.ticket_id).toEqual(expect.any(String));
    const [t] = tickets();
    expect(t).toMatchObject({ ticket_id: first.ticket_id, subject: `${W}|ETH_USDT|${ms('2026-01-31T23:59:59.999Z')}`, amount: '0.25' });
    expect(t!.desc).toBe('statement 938.15 USDT, ledger 937.9, difference 0.25 at the end of 2026-01-31 (UTC)');
    expect(JSON.parse(t!.claimed)).toMatchObject({ statement_balance: '938.15', ledger_balance: '937.9', difference: '0.25' });

    const again = BalanceCheck.parse(await svc.invoke('balance-check', { ...check, statement_balance: 938.15 }, meta));
    expect(again.ticket_id).toBe(first.ticket_id);
    expect(tickets()).toHaveLength(1);
    const events = svc.ctx.db.$client
      .prepare('SELECT kind FROM ticket_events WHERE ticket_id = ? ORDER BY id')
      .pluck()
      .all(first.ticket_id);
    expect(events).toEqual(['opened', 'updated']);
    // The ticket shows in the queue as a balance exception.
    const queue = await svc.invoke('tickets-list', { kind: 'balance' }, meta);
    expect(queue.list.map((x) => x.ticket_id)).toEqual([first.ticket_id]);

    // Another moment agrees and opens nothing; the exception of 2026-01-31 stays as it is.
    const other = BalanceCheck.parse(
      await svc.invoke('balance-check', { ...check, at: '2026-01-31T12:00:00Z', statement_balance: '937.90' }, meta),
    );
    expect(other).toMatchObject({ statement_balance: '937.90', places: 2, difference: '0', ticket_id: null, ticket_status: null });
    expect(tickets()).toHaveLength(1);
  });

  it('compares a statement at its own precision: the ledger rounded half to even to its decimal places', async () => {
    // 0.449205855000000001 ETH: what a custodian writes as 0.4492 (four places) or 0.449206 (six).
    const eth = { wallet_id: W, chain_id: 'ETH', token_id: 'ETH', type: 'Deposit', status: 'Completed', hash: evmHash(9) };
    const when = String(ms('2019-10-20T08:00:00Z'));
    await svc.invoke(
      'ledger-import',
      { source: text([line({ ...eth, transaction_id: id(9), amount: '0.449205855000000001', created_at: when })]) },
      meta,
    );
    const check = (statement_balance: string, extra: Record<string, unknown> = {}) =>
      svc
        .invoke('balance-check', { wallet_id: W, token_id: 'ETH', at: '2019-10-31', statement_balance, ...extra }, meta)
        .then(BalanceCheck.parse);

    const agrees = await check('0.4492');
    expect(agrees).toMatchObject({
      ledger_balance: '0.449205855000000001',
      statement_balance: '0.4492',
      places: 4,
      ledger_rounded: '0.4492',
      difference: '0',
      rule: "compared at the statement's 4 decimal places: the ledger's 0.449205855000000001 rounded half to even is 0.4492",
      ticket_id: null,
      ticket_status: null,
    });
    expect((await check('0.449206')).difference).toBe('0');
    // Trailing zeros are places too: 0.44920 is five places, where the ledger is 0.44921.
    expect(await check('0.44920')).toMatchObject({ places: 5, ledger_rounded: '0.44921', difference: '-0.00001' });

    const differs = await check('0.4493');
    expect(differs).toMatchObject({ places: 4, ledger_rounded: '0.4492', difference: '0.0001', ticket_status: 'Pending' });
    const opened = await svc.invoke('ticket-get', { ticket_id: differs.ticket_id! }, meta);
    expect(opened).toMatchObject({ kind: 'balance', status: 'Pending' });
    expect(opened.desc).toBe(
      'statement 0.4493 ETH, ledger 0.449205855000000001 (0.4492 at 4 places, rounded half to even), difference 0.0001 at the end of 2019-10-31 (UTC)',
    );
    // Told to compare at six places, 0.4492 is a statement of 0.449200.
    expect(await check('0.4492', { places: 6 })).toMatchObject({
      places: 6,
      ledger_rounded: '0.449206',
      difference: '-0.000006',
      rule: "compared at the asked 6 decimal places: the ledger's 0.449205855000000001 rounded half to even is 0.449206",
    });

    // Checked again with a figure that agrees: the exception is resolved, by whom, and why.
    await svc.invoke('app-user-set', { name: 'Grace Hopper' }, meta);
    expect((await check('0.4493')).ticket_id).toBe(differs.ticket_id);
    const settled = await check('0.4492');
    expect(settled).toMatchObject({ difference: '0', ticket_id: differs.ticket_id, ticket_status: 'Resolved' });
    const resolved = await svc.invoke('ticket-get', { ticket_id: differs.ticket_id! }, meta);
    expect(resolved.status).toBe('Resolved');
    expect(resolved.events.at(-1)).toMatchObject({
      kind: 'status',
      from_status: 'Pending',
      to_status: 'Resolved',
      actor: 'Grace Hopper',
      note: "statement 0.4492 ETH agrees with the ledger at the end of 2019-10-31 (UTC): compared at the statement's 4 decimal places: the ledger's 0.449205855000000001 rounded half to even is 0.4492",
    });
    // Nothing Pending is left to resolve: agreeing again touches nothing.
    expect(await check('0.4492')).toMatchObject({ ticket_id: null, ticket_status: null });
    expect((await svc.invoke('ticket-get', { ticket_id: differs.ticket_id! }, meta)).events).toHaveLength(resolved.events.length);
    // A whole number is compared exactly, unless it is said to be in whole units.
    expect(await check('0')).toMatchObject({ places: 18, difference: '-0.449205855000000001', ticket_status: 'Pending' });
    expect(await check('0', { places: 0 })).toMatchObject({ places: 0, ledger_rounded: '0', difference: '0', ticket_status: 'Resolved' });
  });

  it("rounds half to even at the statement's places", async () => {
    const eth = { wallet_id: W, chain_id: 'ETH', token_id: 'ETH', type: 'Deposit', status: 'Completed', hash: evmHash(9) };
    await svc.invoke(
      'ledger-import',
      { source: text([line({ ...eth, transaction_id: id(9), amount: '0.44925', created_at: String(ms('2019-10-20T08:00:00Z')) })]) },
      meta,
    );
    const check = (statement_balance: string) =>
      svc.invoke('balance-check', { wallet_id: W, token_id: 'ETH', at: '2019-10-31', statement_balance }, meta).then(BalanceCheck.parse);
    expect(await check('0.4492')).toMatchObject({ ledger_rounded: '0.4492', difference: '0' });
    expect(await check('0.4493')).toMatchObject({ ledger_rounded: '0.4492', difference: '0.0001' });
    expect(await check('0.44925')).toMatchObject({
      rule: "compared at the statement's 5 decimal places; the ledger's 0.44925 needs no rounding",
    });
  });

  it('sums stay exact past what 64-bit integer parts hold (more than 18 places or digits, sums past 2^63)', async () => {
    const eth = { wallet_id: W, chain_id: 'ETH', token_id: 'ETH', type: 'Deposit', status: 'Completed' };
    const day = (d: number) => String(ms(`2026-03-${String(d).padStart(2, '0')}T12:00:00Z`));
    // 18 places fit the parts: 1.000000000000000001 + 2.5 = 3.500000000000000001
    const fits = [
      line({ ...eth, transaction_id: id(1), amount: '1.000000000000000001', created_at: day(1) }),
      line({ ...eth, transaction_id: id(2), amount: '2.5', created_at: day(2) }),
    ];
    await svc.invoke('ledger-import', { source: text(fits) }, meta);
    expect((await at('2026-03-31')).rows).toEqual([{ wallet_id: W, chain_id: 'ETH', token_id: 'ETH', balance: '3.500000000000000001' }]);
    // A fee of 19 places: 3.500000000000000001 - 0.0000000000000000001 = 3.5000000000000000009
    await svc.invoke(
      'ledger-import',
      { source: text([line({ ...eth, transaction_id: id(3), amount: '0', fee: '0.0000000000000000001', created_at: day(3) })]) },
      meta,
    );
    expect(await at('2026-03-31').then((r) => r.rows[0]!.balance)).toBe('3.5000000000000000009');
    // Eleven deposits of 9 * 10^17 sum past 2^63 (about 9.22 * 10^18): 9.9 * 10^18 + 3.5000000000000000009
    const many = Array.from({ length: 11 }, (_, i) =>
      line({ ...eth, transaction_id: id(10 + i), amount: '900000000000000000', created_at: day(10 + i) }),
    );
    await svc.invoke('ledger-import', { source: text(many) }, meta);
    expect(await at('2026-03-31').then((r) => r.rows[0]!.balance)).toBe('9900000000000000003.5000000000000000009');
  });

  it('bad input names the field and changes nothing', async () => {
    await load();
    const before = JSON.stringify(svc.ctx.db.$client.prepare('SELECT * FROM tickets').all());
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['balances-at', { at: 'yesterday' }, /^at: "yesterday" is not a date/],
      ['balances-at', { at: '2026-02-30' }, /^at: "2026-02-30" is not a calendar date/],
      ['balances-at', { at: '2026-01-31', time_zone: 'Mars/Olympus' }, /^time_zone: unknown time zone/],
      ['balances-at', {}, /^at: is required/],
      ['balances-at', { at: '2026-01-31', wallet_id: 'nope' }, /^wallet_id: must be UUID-shaped/],
      ['balances-at', { at: '2026-01-31', wallet_id: id(99) }, /^wallet_id: no wallet/],
      ['balances-period', { from: '2026-02-01', to: '2026-01-01' }, /^to: 2026-01-01 is before from/],
      ['balances-period', { from: '2026-02-01' }, /^to: is required/],
      ['balance-movements', { wallet_id: W, token_id: 'NOPE', from: '2026-01-01', to: '2026-01-31' }, /^token_id: unknown token "NOPE"/],
      [
        'balance-movements',
        { wallet_id: W, token_id: 'ETH_USDT', from: '2026-01-01', to: '2026-01-31', page_size: 501 },
        /^page_size: must be an integer from 1 to 500/,
      ],
      [
        'balance-check',
        { wallet_id: W, token_id: 'ETH_USDT', at: '2026-01-31', statement_balance: 'ten' },
        /^statement_balance: must be a number/,
      ],
      ['balance-check', { wallet_id: W, token_id: 'ETH_USDT', at: '2026-13-01', statement_balance: '1' }, /^at: /],
      ['balance-check', { wallet_id: W, token_id: 'ETH_USDT', at: '2026-01-31' }, /^statement_balance: /],
      [
        'balance-check',
        { wallet_id: W, token_id: 'ETH_USDT', at: '2026-01-31', statement_balance: '1.005', places: 2 },
        /^places: is fewer than the decimal places statement_balance is written with/,
      ],
      [
        'balance-check',
        { wallet_id: W, token_id: 'ETH_USDT', at: '2026-01-31', statement_balance: '1', places: -1 },
        /^places: must be an integer/,
      ],
    ];
    for (const [name, input, message] of cases) {
      const err = await failure(svc.invoke(name as 'balances-at', input, meta));
      expect(err.code, `${name} ${JSON.stringify(input)}`).toBe(1002);
      expect(err.message, `${name} ${JSON.stringify(input)}`).toMatch(message);
    }
    expect(JSON.stringify(svc.ctx.db.$client.prepare('SELECT * FROM tickets').all())).toBe(before);
  });
});
