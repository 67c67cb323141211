import { ErrorCodes } from '../../../shared/errors';
import type { FlagField } from '../../../shared/reconcile';
import type { TicketDetail, TicketPublic, ticketsContract } from '../../../shared/tickets';
import type { HandlersOf, ServiceContext } from '../context';
import { invalidParam, ServiceError } from '../errors';
import { parseClaimed } from '../json/claimed';
import { findWallet, getTransaction } from '../ledger/repository';
import { deferredTickets } from './deferred';
import { getTicket, listTickets, setTicketStatus, setTicketsStatus, ticketEvents, ticketStatuses, type TicketRow } from './repository';
import { actorOf, transitionError } from './rules';

const seconds = (ms: number): number => Math.floor(ms / 1000);

function detail(ctx: ServiceContext, row: TicketRow): TicketDetail {
  const { claimed, ...summary } = row;
  return {
    ...summary,
    claimed: parseClaimed(claimed),
    record: getTransaction(ctx.db, row.transaction_id) ?? null,
    abnormal_fields: row.abnormals === '' ? [] : (row.abnormals.split(',') as FlagField[]),
    events: ticketEvents(ctx.db, row.ticket_id),
  };
}

function requireTicket(ctx: ServiceContext, ticketId: string): TicketRow {
  const row = getTicket(ctx.db, ticketId);
  if (!row) throw new ServiceError(ErrorCodes.TICKET_NOT_FOUND, `ticket_id: no ticket ${ticketId}`);
  return row;
}

export function ticketsHandlers(ctx: ServiceContext): HandlersOf<typeof ticketsContract> {
  return {
    'tickets-list': (q) => listTickets(ctx.db, q, ctx.now()),
    'ticket-get': ({ ticket_id }) => detail(ctx, requireTicket(ctx, ticket_id)),
    'ticket-transition': ({ ticket_id, to, note }, meta) => {
      const row = requireTicket(ctx, ticket_id);
      const refused = transitionError(row.status, to);
      if (refused) throw invalidParam('to', refused);
      setTicketStatus(ctx.db, ticket_id, row.status, to, note?.trim() ?? '', actorOf(ctx, meta), ctx.now());
      return detail(ctx, requireTicket(ctx, ticket_id));
    },
    'tickets-transition': ({ ticket_ids, to, note }, meta) => {
      const ids = [...new Set(ticket_ids.map((id) => id.toLowerCase()))];
      const statuses = ticketStatuses(ctx.db, ids);
      // Every one or none: the first ticket that cannot change names itself and nothing changes.
      for (const [i, id] of ids.entries()) {
        const from = statuses.get(id);
        if (from === undefined) throw new ServiceError(ErrorCodes.TICKET_NOT_FOUND, `ticket_ids[${i}]: no ticket ${id}`);
        const refused = transitionError(from, to);
        if (refused) throw invalidParam(`ticket_ids[${i}]`, `ticket ${id}: ${refused}`);
      }
      const changes = ids.map((id) => ({ ticket_id: id, from: statuses.get(id)! }));
      setTicketsStatus(ctx.db, changes, to, note?.trim() ?? '', actorOf(ctx, meta), ctx.now());
      return { changed: changes.length };
    },
    'ticket-lookup': ({ wallet_id, ticket_id }, meta): TicketPublic => {
      if (meta.walletScope && !meta.walletScope.includes(wallet_id.toLowerCase())) {
        throw new ServiceError(ErrorCodes.AUTH_WALLET_FORBIDDEN, `wallet_id: this API key may not act on wallet ${wallet_id}`);
      }
      if (!findWallet(ctx.db, wallet_id)) throw new ServiceError(ErrorCodes.UNKNOWN_WALLET, `wallet_id: unknown wallet ${wallet_id}`);
      // Also a ticket a verification opened or updated while an import holds the write lock.
      const found = deferredTickets(ctx.engine).get(ctx.db, ticket_id.toLowerCase());
      // The API's tickets are the mismatches; the desktop app's other exceptions are not its business.
      const row = found?.kind === 'mismatch' ? found : undefined;
      // Another wallet's ticket is answered exactly like a missing one: its existence is not the caller's business.
      if (!row || row.wallet_id.toLowerCase() !== wallet_id.toLowerCase()) {
        throw new ServiceError(ErrorCodes.TICKET_NOT_FOUND, `ticket_id: no ticket ${ticket_id} in wallet ${wallet_id}`);
      }
      const record = getTransaction(ctx.db, row.transaction_id);
      return {
        ticket_id: row.ticket_id,
        transaction_id: row.transaction_id,
        abnormals: row.abnormals,
        desc: row.desc,
        status: row.status,
        created_at: seconds(row.created_at),
        updated_at: seconds(row.updated_at),
        wallet_id: row.wallet_id,
        request_id: record?.request_id ?? '',
        hash: record?.hash ?? '',
      };
    },
  };
}
