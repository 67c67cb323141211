import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BalanceCheck, BalancesAt, BalanceStatement, BalancesPeriod } from '../../shared/balances';
import { LEDGER_FIELDS } from '../../shared/ledger';
import { tempService } from '../service/test-support';
import { nps } from './nps.test-support';

const W = '11111111-2222-4333-8444-555555555555';
const row = (f: Partial<Record<(typeof LEDGER_FIELDS)[number], string>>) => LEDGER_FIELDS.map((k) => f[k] ?? '').join(',');
const usdt = { wallet_id: W, chain_id: 'TRON', token_id: 'TRON_USDT' };
const ms = (iso: string) => String(Date.parse(iso));

describe('npm run nps -- balances', () => {
  const svc = tempService();
  svc.close();
  afterAll(() => svc.dispose());
  const dir = ['--data-dir', svc.dataDir];
  const file = join(svc.dataDir, 'ledger.csv');
  writeFileSync(
    file,
    [
      LEDGER_FIELDS.join(','),
      // +100 on 2026-01-03; -(40 + 0.5 fee) on 2026-01-20; a Pending deposit of 7 moves nothing: 59.5 at the end of January
      row({
        ...usdt,
        transaction_id: '00000000-0000-4000-8000-000000000001',
        type: 'Deposit',
        status: 'Completed',
        amount: '100',
        created_at: ms('2026-01-03T10:00:00Z'),
      }),
      row({
        ...usdt,
        transaction_id: '00000000-0000-4000-8000-000000000002',
        type: 'Withdrawal',
        status: 'Completed',
        amount: '40.5',
        fee: '0.5',
        amount_actual: '40',
        created_at: ms('2026-01-20T10:00:00Z'),
      }),
      row({
        ...usdt,
        transaction_id: '00000000-0000-4000-8000-000000000003',
        type: 'Deposit',
        status: 'Pending',
        amount: '7',
        created_at: ms('2026-01-25T10:00:00Z'),
      }),
    ].join('\n') + '\n',
  );

  it('prints balances at a date and over a period, the statement, and checks a statement balance', async () => {
    expect((await nps(['import', file, ...dir])).code).toBe(0);
    expect((await nps(['wallets', 'rename', W, 'Tron cold', ...dir])).code).toBe(0);

    const at = await nps(['balances', '--at', '2026-01-31', ...dir]);
    expect(at).toMatchObject({ code: 0, err: '' });
    expect(at.out).toMatch(
      /^Balances at 2026-01-31T23:59:59\.999Z \(UTC\):\nWALLET +CHAIN +TOKEN +BALANCE\nTron cold +TRON +TRON_USDT +59\.5\n$/,
    );
    const json = BalancesAt.parse(
      JSON.parse((await nps(['balances', '--wallet', 'tron COLD', '--at', '2026-01-10', '--json', ...dir])).out),
    );
    expect(json.rows).toEqual([{ wallet_id: W, chain_id: 'TRON', token_id: 'TRON_USDT', balance: '100' }]);

    const period = BalancesPeriod.parse(
      JSON.parse(
        (await nps(['balances', '--from', '2026-01-10', '--to', '2026-01-31', '--time-zone', 'Europe/Berlin', '--json', ...dir])).out,
      ),
    );
    expect(period.rows).toEqual([
      {
        wallet_id: W,
        chain_id: 'TRON',
        token_id: 'TRON_USDT',
        opening: '100',
        inflow: '0',
        outflow: '40',
        fees: '0.5',
        closing: '59.5',
        movements: 1,
      },
    ]);
    const text = await nps(['balances', '--from', '2026-01-01', '--to', '2026-01-31', ...dir]);
    expect(text.out).toContain('WALLET     CHAIN  TOKEN      OPENING   IN  OUT  FEES  CLOSING  MOVEMENTS');
    expect(text.out).toContain('Tron cold  TRON   TRON_USDT        0  100   40   0.5     59.5          2');

    const statement = BalanceStatement.parse(
      JSON.parse(
        (
          await nps([
            'balances',
            'statement',
            '--wallet',
            'Tron cold',
            '--token',
            'TRON_USDT',
            '--from',
            '2026-01-01',
            '--to',
            '2026-01-31',
            '--json',
            ...dir,
          ])
        ).out,
      ),
    );
    expect(statement.list.map((m) => m.balance)).toEqual(['100', '59.5']);

    const check = await nps([
      'balances',
      'check',
      '--wallet',
      'Tron cold',
      '--token',
      'TRON_USDT',
      '--at',
      '2026-01-31',
      '--balance',
      '60',
      ...dir,
    ]);
    expect(check.code).toBe(0);
    expect(check.out).toMatch(
      /^Tron cold, TRON_USDT at 2026-01-31T23:59:59\.999Z: statement 60, ledger 59\.5, difference 0\.5\n\(compared exactly: the statement is written without decimal places \(give 0 decimal places to compare in whole units\)\)\nException [0-9a-f-]{36} \(kind balance\) is Pending/,
    );
    const again = BalanceCheck.parse(
      JSON.parse(
        (await nps(['balances', 'check', '--wallet', W, '--token', 'TRON_USDT', '--at', '2026-01-31', '--balance', '60', '--json', ...dir]))
          .out,
      ),
    );
    expect(check.out).toContain(again.ticket_id!);
    // The statement's figure as written, 59.50, agrees at its two places: the exception is resolved.
    const agrees = await nps([
      'balances',
      'check',
      '--wallet',
      W,
      '--token',
      'TRON_USDT',
      '--at',
      '2026-01-31',
      '--balance',
      '59.50',
      ...dir,
    ]);
    expect(agrees.out).toContain(
      `statement 59.50, ledger 59.5, difference 0\n(compared at the statement's 2 decimal places; the ledger's 59.5 needs no rounding)\nThey agree: exception ${again.ticket_id} (kind balance) is resolved.`,
    );

    const bad = await nps([
      'balances',
      'check',
      '--wallet',
      'Tron cold',
      '--token',
      'TRON_USDT',
      '--at',
      '31.01.2026',
      '--balance',
      '60',
      ...dir,
    ]);
    expect(bad).toMatchObject({ code: 1, err: expect.stringMatching(/^error 1002: at: "31\.01\.2026" is not a date/) });
    const missing = await nps(['balances', 'check', '--wallet', 'Tron cold', '--at', '2026-01-31', '--balance', '60', ...dir]);
    expect(missing.code).not.toBe(0);
    expect(missing.err).toMatch(/--token is required/);
    const zone = await nps(['balances', '--at', '2026-01-31', '--time-zone', 'Nowhere/Else', ...dir]);
    expect(zone.err).toMatch(/^error 1002: time_zone: unknown time zone "Nowhere\/Else"/);
  }, 240_000);
});
