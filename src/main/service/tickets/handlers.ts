import { ErrorCodes } from '../../../shared/errors';
import type { FlagField } from '../../../shared/reconcile';
import type { TicketDetail, TicketPublic, ticketsContract } from '../../../shared/tickets';
import type { HandlersOf, ServiceContext } from '../context';
import { invalidParam, ServiceError } from '../errors';
import { parseClaimed } from '../json/claimed';
import { findWallet, getTransaction } from '../ledger/repository';
import { deferredTickets } from './deferred';
import { listTickets, type TicketRow } from './repository';
import { actorOf, changedSinceText, transitionError } from './rules';

const seconds = (ms: number): number => Math.floor(ms / 1000);

async function detail(ctx: ServiceContext, row: TicketRow): Promise<TicketDetail> {
  const { claimed, ...summary } = row;
  return {
    ...summary,
    claimed: parseClaimed(claimed),
    record: getTransaction(ctx.db, row.transaction_id) ?? null,
    abnormal_fields: row.abnormals === '' ? [] : (row.abnormals.split(',') as FlagField[]),
    events: await ctx.tickets.events(row.ticket_id),
  };
}

async function requireTicket(ctx: ServiceContext, ticketId: string): Promise<TicketRow> {
  const row = await ctx.tickets.get(ticketId);
  if (!row) throw new ServiceError(ErrorCodes.TICKET_NOT_FOUND, `ticket_id: no ticket ${ticketId}`);
  return row;
}

/** 3006: these tickets changed since the caller saw them (or read them); who changed each, to what, when. */
async function changedSince(ctx: ServiceContext, field: string, ids: readonly string[], total: number): Promise<ServiceError> {
  const now = await ctx.tickets.now(ids);
  const changed = ids.flatMap((id) => now.get(id) ?? []);
  return new ServiceError(ErrorCodes.TICKET_CHANGED, `${field}: ${changedSinceText(changed, total)}`);
}

export function ticketsHandlers(ctx: ServiceContext): HandlersOf<typeof ticketsContract> {
  return {
    'tickets-list': (q) => listTickets(ctx.db, q, ctx.now()),
    'ticket-get': async ({ ticket_id }) => detail(ctx, await requireTicket(ctx, ticket_id)),
    'ticket-transition': async ({ ticket_id, to, note, seen }, meta) => {
      const row = await requireTicket(ctx, ticket_id);
      const id = row.ticket_id;
      if (seen && (seen.status !== row.status || seen.version !== row.version)) throw await changedSince(ctx, 'ticket_id', [id], 1);
      const refused = transitionError(row.status, to);
      if (refused) throw invalidParam('to', refused);
      const stale = await ctx.tickets.setStatus(
        [{ ticket_id: id, from: row.status, version: row.version }],
        to,
        note?.trim() ?? '',
        actorOf(ctx, meta),
        ctx.now(),
      );
      if (stale.length > 0) throw await changedSince(ctx, 'ticket_id', stale, 1);
      return detail(ctx, await requireTicket(ctx, id));
    },
    'tickets-transition': async ({ ticket_ids, to, note, seen = {} }, meta) => {
      const ids = [...new Set(ticket_ids.map((id) => id.toLowerCase()))];
      const saw = new Map(Object.entries(seen).map(([id, s]) => [id.toLowerCase(), s]));
      for (const id of Object.keys(seen)) {
        if (!ids.includes(id.toLowerCase())) throw invalidParam(`seen.${id}`, 'is not one of ticket_ids');
      }
      const now = await ctx.tickets.now(ids);
      for (const [i, id] of ids.entries()) {
        if (!now.has(id)) throw new ServiceError(ErrorCodes.TICKET_NOT_FOUND, `ticket_ids[${i}]: no ticket ${id}`);
      }
      // All or nothing: a bulk change decided on a queue that has since moved is decided again, whole.
      const moved = ids.filter((id) => {
        const s = saw.get(id);
        return s !== undefined && (s.status !== now.get(id)!.status || s.version !== now.get(id)!.version);
      });
      if (moved.length > 0) throw await changedSince(ctx, 'ticket_ids', moved, ids.length);
      for (const [i, id] of ids.entries()) {
        const refused = transitionError(now.get(id)!.status, to);
        if (refused) throw invalidParam(`ticket_ids[${i}]`, `ticket ${id}: ${refused}`);
      }
      const changes = ids.map((id) => ({ ticket_id: id, from: now.get(id)!.status, version: now.get(id)!.version }));
      const stale = await ctx.tickets.setStatus(changes, to, note?.trim() ?? '', actorOf(ctx, meta), ctx.now());
      if (stale.length > 0) throw await changedSince(ctx, 'ticket_ids', stale, ids.length);
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
