import { DateTime } from 'luxon';
import type { BalanceCheck, BalancesAt, BalanceStatement, BalancesPeriod } from '../../shared/balances';
import { dataDirOption, parseFlags, withService } from './common';
import { UsageError } from './errors';
import type { Invoker } from './running';
import { balancesUsage } from './usage';
import { walletId } from './wallets';
import { requireSubcommand } from './suggest';

const cli = { actor: 'cli' as const };
const out = (s: string) => process.stdout.write(s + '\n');
const iso = (ms: number) => new Date(ms).toISOString();

/** A table of text columns, numbers right-aligned. */
function table(head: string[], rows: string[][], right: Set<number>): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (right.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

async function walletNames(service: Invoker): Promise<(id: string) => string> {
  const wallets = await service.invoke('wallets-list', {}, cli);
  const names = new Map(wallets.map((w) => [w.wallet_id, w.name]));
  return (id) => names.get(id) || id;
}

const undatedNote = (n: number) =>
  n > 0
    ? `\n${n} record(s) that would move a balance carry no time (no created_at, confirmed_at or completed_at) and are in no balance.`
    : '';

function showAt(r: BalancesAt, name: (id: string) => string): string {
  const head = `Balances at ${iso(r.at)} (${r.time_zone}):`;
  if (r.rows.length === 0) return `${head} none (no record that moves a balance up to then).${undatedNote(r.undated)}`;
  const rows = r.rows.map((b) => [name(b.wallet_id), b.chain_id, b.token_id, b.balance]);
  return `${head}\n${table(['WALLET', 'CHAIN', 'TOKEN', 'BALANCE'], rows, new Set([3]))}${undatedNote(r.undated)}`;
}

function showPeriod(r: BalancesPeriod, name: (id: string) => string): string {
  const head = `Balances from ${iso(r.from)} to ${iso(r.to)} (${r.time_zone}):`;
  if (r.rows.length === 0) return `${head} none.${undatedNote(r.undated)}`;
  const rows = r.rows.map((b) => [
    name(b.wallet_id),
    b.chain_id,
    b.token_id,
    b.opening,
    b.inflow,
    b.outflow,
    b.fees,
    b.closing,
    String(b.movements),
  ]);
  const cols = ['WALLET', 'CHAIN', 'TOKEN', 'OPENING', 'IN', 'OUT', 'FEES', 'CLOSING', 'MOVEMENTS'];
  return `${head}\n${table(cols, rows, new Set([3, 4, 5, 6, 7, 8]))}${undatedNote(r.undated)}`;
}

function showStatement(s: BalanceStatement, lines: BalanceStatement['list'], name: string): string {
  const rows = lines.map((m) => [iso(m.at), m.type, m.status, m.transaction_id, m.inflow, m.outflow, m.fees, m.balance]);
  return [
    `Statement of ${name}, ${s.token_id} (${s.chain_id}), ${iso(s.from)} to ${iso(s.to)}`,
    `Opening balance ${s.opening}`,
    table(['AT', 'TYPE', 'STATUS', 'TRANSACTION_ID', 'IN', 'OUT', 'FEES', 'BALANCE'], rows, new Set([4, 5, 6, 7])),
    `Closing balance ${s.closing} (${s.total} movements)`,
  ].join('\n');
}

function showCheck(c: BalanceCheck, name: string): string {
  const head = `${name}, ${c.token_id} at ${iso(c.at)}: statement ${c.statement_balance}, ledger ${c.ledger_balance}, difference ${c.difference}\n(${c.rule})`;
  if (c.difference === '0')
    return c.ticket_id === null ? `${head}\nThey agree.` : `${head}\nThey agree: exception ${c.ticket_id} (kind balance) is resolved.`;
  return `${head}\nException ${c.ticket_id} (kind balance) is Pending in the queue.`;
}

/** Today's date where the user is: the default moment of `nps balances`. */
const today = (zone: string | undefined) =>
  DateTime.now()
    .setZone(zone || 'UTC')
    .toISODate() ?? DateTime.utc().toISODate()!;

export async function balancesCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, {
    ...dataDirOption,
    wallet: { type: 'string' },
    token: { type: 'string' },
    at: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    'time-zone': { type: 'string' },
    balance: { type: 'string' },
    places: { type: 'string' },
    json: { type: 'boolean' },
  });
  const [sub, ...rest] = positionals;
  if (sub !== undefined) requireSubcommand('balances', sub, ['check', 'statement']);
  if (rest.length > 0 || (sub !== undefined && sub !== 'check' && sub !== 'statement')) throw new UsageError(balancesUsage);
  const zone = values['time-zone'] !== undefined ? { time_zone: values['time-zone'] } : {};
  const need = (flag: string, v: string | undefined): string => {
    if (v === undefined) throw new UsageError(`--${flag} is required here\n\n${balancesUsage}`);
    return v;
  };
  const print = (json: unknown, text: () => string) => out(values.json ? JSON.stringify(json, null, 2) : text());

  await withService(values['data-dir'], async (service) => {
    const name = await walletNames(service);
    const wallet = values.wallet === undefined ? undefined : await walletId(service, values.wallet);
    if (sub === 'check') {
      const check = await service.invoke(
        'balance-check',
        {
          wallet_id: need('wallet', wallet),
          token_id: need('token', values.token),
          at: need('at', values.at),
          statement_balance: need('balance', values.balance),
          // The service checks it is a whole number and names the field when it is not.
          ...(values.places !== undefined ? { places: /^\d+$/.test(values.places) ? Number(values.places) : values.places } : {}),
          ...zone,
        },
        cli,
      );
      print(check, () => showCheck(check, name(check.wallet_id)));
    } else if (sub === 'statement') {
      const query = {
        wallet_id: need('wallet', wallet),
        token_id: need('token', values.token),
        from: need('from', values.from),
        to: need('to', values.to),
        ...zone,
        page_size: 500,
      };
      const first = await service.invoke('balance-movements', { ...query, page: 1 }, cli);
      const lines = [...first.list];
      for (let page = 2; lines.length < first.total; page++)
        lines.push(...(await service.invoke('balance-movements', { ...query, page }, cli)).list);
      print({ ...first, list: lines, page_size: Math.max(lines.length, first.page_size) }, () =>
        showStatement(first, lines, name(first.wallet_id)),
      );
    } else if (values.from !== undefined || values.to !== undefined) {
      if (values.at !== undefined) throw new UsageError(`give --at, or --from and --to, not both\n\n${balancesUsage}`);
      const period = await service.invoke(
        'balances-period',
        { from: need('from', values.from), to: need('to', values.to), ...(wallet ? { wallet_id: wallet } : {}), ...zone },
        cli,
      );
      print(period, () => showPeriod(period, name));
    } else {
      const at = await service.invoke(
        'balances-at',
        { at: values.at ?? today(values['time-zone']), ...(wallet ? { wallet_id: wallet } : {}), ...zone },
        cli,
      );
      print(at, () => showAt(at, name));
    }
  });
}
