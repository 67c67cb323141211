import { z } from 'zod';
import { LedgerRecord } from './ledger';
import { addition, PageQuery, UUID_RE, Uuid, pageOf, requiredString } from './primitives';
import { FlagField } from './reconcile';

const TICKET_STATUSES = ['Pending', 'Resolved', 'Dismissed'] as const;
export const TicketStatus = z.enum(TICKET_STATUSES, { error: `must be one of ${TICKET_STATUSES.join(', ')}` });
export type TicketStatus = z.infer<typeof TicketStatus>;

/** A ticket as the desktop UI lists it. Times are Unix milliseconds. */
export const TicketSummary = z.object({
  ticket_id: z.string(),
  wallet_id: z.string(),
  transaction_id: z.string(),
  status: TicketStatus,
  abnormals: z
    .string()
    .meta({ description: 'False flags, comma-separated, in the order chain_id,token_id,to,status,type,amount,fee,amount_actual,time' }),
  desc: z.string().meta({ description: 'Per field, what was claimed and what is recorded' }),
  run_id: z.string().nullable(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});
export type TicketSummary = z.infer<typeof TicketSummary>;

export const TicketEvent = z.object({
  /** opened, updated (a new mismatching claim), status (a transition) */
  kind: z.enum(['opened', 'updated', 'status']),
  from_status: TicketStatus.nullable(),
  to_status: TicketStatus.nullable(),
  note: z.string(),
  actor: z.string(),
  at: z.number().int(),
});
export type TicketEvent = z.infer<typeof TicketEvent>;

export const TicketDetail = TicketSummary.extend({
  /** The claim that last opened or updated the ticket, as it was sent. */
  claimed: z.record(z.string(), z.unknown()),
  /** The record as it stands now; null only if it has since left the ledger. */
  record: LedgerRecord.nullable(),
  abnormal_fields: z.array(FlagField),
  events: z.array(TicketEvent),
});
export type TicketDetail = z.infer<typeof TicketDetail>;

export const TicketListInput = z.object({
  ...PageQuery,
  status: TicketStatus.optional(),
  wallet_id: Uuid.optional(),
});
export type TicketListInput = z.output<typeof TicketListInput>;

const TicketRef = z.object({ ticket_id: requiredString() });

const TicketTransitionInput = z.object({
  ticket_id: requiredString(),
  to: TicketStatus,
  note: z.string().max(2000, { error: 'must be at most 2000 characters' }).optional(),
});
type TicketTransitionInput = z.output<typeof TicketTransitionInput>;

const RequiredUuid = requiredString().regex(UUID_RE, { error: 'must be UUID-shaped (8-4-4-4-12 hex digits)' });

/** Query of GET /nps/ticket: both required and UUID-shaped. */
export const TicketLookupQuery = z.object({
  wallet_id: RequiredUuid.meta({ description: 'The wallet the ticket belongs to' }),
  ticket_id: RequiredUuid.meta({ description: 'The ticket_id a verification result returned' }),
});
export type TicketLookupQuery = z.output<typeof TicketLookupQuery>;

/**
 * GET /nps/ticket `data`: the source description's seven fields in its order, then the additions.
 * Times are integer Unix seconds.
 */
export const TicketPublic = z.strictObject({
  ticket_id: z.string(),
  transaction_id: z.string(),
  abnormals: z.string().meta({
    description:
      "The false flags' field names, comma-separated, in the order chain_id,token_id,to,status,type,amount,fee,amount_actual,time",
  }),
  desc: z.string().meta({ description: 'Per field, what was claimed and what is recorded' }),
  status: TicketStatus.meta({ description: 'Pending, Resolved or Dismissed' }),
  created_at: z.number().int(),
  updated_at: z.number().int(),
  wallet_id: z.string().meta(addition('the wallet of the ticket')),
  request_id: z.string().meta(addition('the request_id of the transaction; "" when not recorded')),
  hash: z.string().meta(addition('the on-chain hash of the transaction; "" when not recorded')),
});
export type TicketPublic = z.infer<typeof TicketPublic>;
/** The fields the source description has, in its order. */
export const SOURCE_TICKET_FIELDS = ['ticket_id', 'transaction_id', 'abnormals', 'desc', 'status', 'created_at', 'updated_at'] as const;

export const ticketsContract = {
  'tickets-list': { readOnly: true, input: TicketListInput, output: pageOf(TicketSummary) },
  'ticket-get': { readOnly: true, input: TicketRef, output: TicketDetail },
  'ticket-transition': { input: TicketTransitionInput, output: TicketDetail },
  'ticket-lookup': { readOnly: true, input: TicketLookupQuery, output: TicketPublic },
};
