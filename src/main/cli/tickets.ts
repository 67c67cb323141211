import { actorLabel } from '../../shared/actors';
import {
  EXCEPTION_KIND_LABELS,
  ExceptionKind,
  TICKET_SORTS,
  TicketStatus,
  type TicketDetail,
  type TicketSummary,
} from '../../shared/tickets';
import { dataDirOption, parseFlags, withService, confirmed } from './common';
import { UsageError } from './errors';
import type { Invoker } from './running';
import { closest, requireSubcommand } from './suggest';
import { walletId } from './wallets';

/*
 * `nps tickets`: the exceptions queue from the command line, through the same handlers as the
 * Tickets screen (tickets-list with its filters, ticket-get, ticket-transition, tickets-transition),
 * so a ticket worked here carries the same reason, name and history as one worked in the window.
 */

const cli = { actor: 'cli' as const };
const out = (s: string) => process.stdout.write(s + '\n');
/** The most tickets-list answers in one page. */
const PAGE = 100;
/** The most tickets one tickets-transition call changes (all or none); more go in several calls. */
const BATCH = 10_000;

type Filters = {
  kind?: ExceptionKind;
  status?: TicketStatus;
  wallet_id?: string;
  chain_id?: string;
  token_id?: string;
  run_id?: string;
  search?: string;
};

/** A value of a fixed list, given in any case; a typo names the closest value. */
function oneOf<T extends string>(flag: string, value: string, known: readonly T[]): T {
  const found = known.find((k) => k.toLowerCase() === value.trim().toLowerCase());
  if (found === undefined)
    throw new UsageError(`${flag}: ${JSON.stringify(value)} is not one of ${known.join(', ')}; did you mean ${closest(value, known)}?`);
  return found;
}

const when = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function line(t: TicketSummary): string {
  const amount = t.amount === '' ? '' : `${t.amount} ${t.token_id}`;
  return [t.ticket_id, t.status.padEnd(9), EXCEPTION_KIND_LABELS[t.kind].padEnd(18), t.chain_id.padEnd(12), amount.padEnd(30), t.desc]
    .join('  ')
    .trimEnd();
}

function describeTicket(t: TicketDetail): string {
  const lines = [
    `Ticket ${t.ticket_id}: ${EXCEPTION_KIND_LABELS[t.kind]}, ${t.status}`,
    `  wallet ${t.wallet_id || '-'}; transaction ${t.transaction_id || '-'}; ${t.chain_id || '-'} ${t.token_id}${t.amount ? ` ${t.amount}` : ''}`,
    `  run ${t.run_id ?? '-'}; opened ${when(t.created_at)}; changed ${when(t.updated_at)}`,
  ];
  if (t.abnormals) lines.push(`  fields that differ: ${t.abnormals}`);
  if (t.desc) lines.push(`  ${t.desc}`);
  if (Object.keys(t.claimed).length) lines.push(`  claimed: ${JSON.stringify(t.claimed)}`);
  if (t.record) lines.push(`  recorded: ${JSON.stringify(t.record)}`);
  lines.push('  history:');
  for (const e of t.events) {
    const change = e.kind === 'status' ? `${e.from_status} -> ${e.to_status}` : e.kind;
    lines.push(`    ${when(e.at)}  ${change} by ${actorLabel(e.actor)}${e.note ? `: ${e.note}` : ''}`);
  }
  return lines.join('\n');
}

/** Every ticket the filters select, page by page, up to `limit`; with the total the queue holds. */
async function select(
  service: Invoker,
  filters: Filters,
  limit: number,
  order: { sort?: (typeof TICKET_SORTS)[number]; order?: 'asc' | 'desc' } = {},
): Promise<{ list: TicketSummary[]; total: number }> {
  const list: TicketSummary[] = [];
  let total = 0;
  for (let page = 1; list.length < limit; page++) {
    const r = await service.invoke('tickets-list', { ...filters, ...order, page, page_size: PAGE }, cli);
    total = r.total;
    list.push(...r.list.slice(0, limit - list.length));
    if (r.list.length < PAGE || page * PAGE >= r.total) break;
  }
  return { list, total };
}

const VERB = { Resolved: 'resolve', Dismissed: 'dismiss', Pending: 'reopen' } as const;
const DONE = { Resolved: 'Resolved', Dismissed: 'Dismissed', Pending: 'Reopened' } as const;

export async function ticketsCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, {
    kind: { type: 'string' },
    status: { type: 'string' },
    wallet: { type: 'string' },
    chain: { type: 'string' },
    token: { type: 'string' },
    run: { type: 'string' },
    search: { type: 'string' },
    sort: { type: 'string' },
    order: { type: 'string' },
    limit: { type: 'string' },
    reason: { type: 'string' },
    yes: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    ...dataDirOption,
  });
  const [sub, ...ids] = positionals;
  requireSubcommand('tickets', sub, ['list', 'show', 'resolve', 'dismiss', 'reopen']);
  const filters: Filters = {
    ...(values.kind !== undefined ? { kind: oneOf('--kind', values.kind, ExceptionKind.options) } : {}),
    ...(values.status !== undefined ? { status: oneOf('--status', values.status, TicketStatus.options) } : {}),
    ...(values.chain !== undefined ? { chain_id: values.chain } : {}),
    ...(values.token !== undefined ? { token_id: values.token } : {}),
    ...(values.run !== undefined ? { run_id: values.run } : {}),
    ...(values.search !== undefined ? { search: values.search } : {}),
  };
  const filtered = Object.keys(filters).length > 0 || values.wallet !== undefined;
  const limit = values.limit === undefined ? 100 : Number(values.limit);
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new UsageError(`--limit: ${JSON.stringify(values.limit)} is not a whole number >= 1`);

  if (sub === 'list' || sub === 'show') {
    if (values.reason !== undefined || values.yes)
      throw new UsageError(`tickets ${sub}: --reason and --yes go with resolve, dismiss and reopen`);
  }
  if (sub === 'show' && (ids.length !== 1 || filtered)) throw new UsageError('tickets show: give exactly one TICKET_ID');
  if (sub === 'list' && ids.length > 0)
    throw new UsageError(`tickets list: takes filters, not ticket IDs (${ids[0]}); tickets show ID shows one`);

  await withService(values['data-dir'], async (service) => {
    if (values.wallet !== undefined) filters.wallet_id = await walletId(service, values.wallet);
    if (sub === 'list') {
      const order = {
        ...(values.sort !== undefined ? { sort: oneOf('--sort', values.sort, TICKET_SORTS) } : {}),
        ...(values.order !== undefined ? { order: oneOf('--order', values.order, ['asc', 'desc'] as const) } : {}),
      };
      const { list, total } = await select(service, filters, limit, order);
      if (values.json) return out(JSON.stringify({ total, list }, null, 2));
      if (total === 0) return out(filtered ? 'No ticket matches these filters.' : 'No tickets: nothing waits for review.');
      out(list.map(line).join('\n'));
      out(`${total} ticket${total === 1 ? '' : 's'}${list.length < total ? `; showing ${list.length} (--limit N for more)` : ''}.`);
      return;
    }
    if (sub === 'show') {
      const t = await service.invoke('ticket-get', { ticket_id: ids[0]! }, cli);
      return out(values.json ? JSON.stringify(t, null, 2) : describeTicket(t));
    }

    const to = sub === 'resolve' ? 'Resolved' : sub === 'dismiss' ? 'Dismissed' : 'Pending';
    const reason = values.reason?.trim() ?? '';
    if (to !== 'Pending' && reason === '')
      throw new UsageError(`tickets ${sub}: --reason is required: say why (every ticket's history keeps it)`);
    const note = reason !== '' ? { note: reason } : {};

    if (ids.length > 0) {
      if (filtered) throw new UsageError(`tickets ${sub}: give ticket IDs or filters, not both`);
      if (ids.length === 1) {
        const t = await service.invoke('ticket-transition', { ticket_id: ids[0]!, to, ...note }, cli);
        return out(values.json ? JSON.stringify(t, null, 2) : `${DONE[to]} ticket ${t.ticket_id} (${EXCEPTION_KIND_LABELS[t.kind]}).`);
      }
      const r = await service.invoke('tickets-transition', { ticket_ids: ids, to, ...note }, cli);
      return out(values.json ? JSON.stringify({ changed: r.changed, ticket_ids: ids }, null, 2) : `${DONE[to]} ${r.changed} tickets.`);
    }

    // By filter: the tickets that can take this step, and never the whole queue by accident.
    if (!filtered)
      throw new UsageError(`tickets ${sub}: give ticket IDs, or filters (--kind, --run, --wallet...) to ${sub} every ticket they select`);
    const from: TicketStatus[] = to === 'Pending' ? ['Resolved', 'Dismissed'] : ['Pending'];
    if (filters.status !== undefined && !from.includes(filters.status))
      throw new UsageError(
        `tickets ${sub}: --status ${filters.status}: only ${from.join(' or ')} tickets can be ${DONE[to].toLowerCase()}`,
      );
    const chosen: string[] = [];
    for (const status of filters.status !== undefined ? [filters.status] : from) {
      chosen.push(...(await select(service, { ...filters, status }, Number.MAX_SAFE_INTEGER)).list.map((t) => t.ticket_id));
    }
    if (chosen.length === 0) {
      return out(
        values.json
          ? JSON.stringify({ changed: 0, ticket_ids: [] }, null, 2)
          : `No ${from.join(' or ')} ticket matches these filters: nothing changed.`,
      );
    }
    if (!values.yes) {
      const question = `${VERB[to][0]!.toUpperCase()}${VERB[to].slice(1)} ${chosen.length} ticket${chosen.length === 1 ? '' : 's'}${reason ? ` with the reason ${JSON.stringify(reason)}` : ''}? [y/N] `;
      // Without a terminal to answer on, only --yes says the user means it.
      if (process.stdin.isTTY !== true)
        throw new UsageError(
          `tickets ${sub}: ${chosen.length} ticket${chosen.length === 1 ? '' : 's'} match; give --yes to ${sub} them (no terminal to confirm on). Nothing was changed.`,
        );
      if (!(await confirmed(question))) throw new UsageError('Nothing was changed.');
    }
    let changed = 0;
    for (let i = 0; i < chosen.length; i += BATCH) {
      changed += (await service.invoke('tickets-transition', { ticket_ids: chosen.slice(i, i + BATCH), to, ...note }, cli)).changed;
    }
    out(
      values.json ? JSON.stringify({ changed, ticket_ids: chosen }, null, 2) : `${DONE[to]} ${changed} ticket${changed === 1 ? '' : 's'}.`,
    );
  });
}
