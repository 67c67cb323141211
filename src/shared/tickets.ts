import { z } from 'zod';
import { LedgerRecord } from './ledger';
import { addition, Amount, PageQuery, UUID_RE, Uuid, pageOf, requiredString } from './primitives';
import { FlagField } from './reconcile';
import { REPORT_GROUP_LABELS } from './reports';

const TICKET_STATUSES = ['Pending', 'Resolved', 'Dismissed'] as const;
export const TicketStatus = z.enum(TICKET_STATUSES, { error: `must be one of ${TICKET_STATUSES.join(', ')}` });
export type TicketStatus = z.infer<typeof TicketStatus>;

/**
 * What an exception is about. `mismatch` is the API's ticket (a found record that disagrees with a
 * claim); the others come from two-way reconciliation and balance checks and live in the same
 * queue with the same lifecycle; `onchain` is a record the chain contradicts or never saw (a check
 * against the chain's node, shared/onchain.ts). GET /nps/ticket answers mismatches only.
 */
export const EXCEPTION_KINDS = ['mismatch', 'not_in_ledger', 'not_in_books', 'duplicate', 'balance', 'onchain'] as const;
export const ExceptionKind = z.enum(EXCEPTION_KINDS, { error: `must be one of ${EXCEPTION_KINDS.join(', ')}` });
export type ExceptionKind = z.infer<typeof ExceptionKind>;

/** How the desktop app names each kind: a reconciliation's by the name of its group. */
export const EXCEPTION_KIND_LABELS: Record<ExceptionKind, string> = {
  mismatch: REPORT_GROUP_LABELS.mismatched,
  not_in_ledger: REPORT_GROUP_LABELS.not_in_ledger,
  not_in_books: REPORT_GROUP_LABELS.not_in_books,
  duplicate: REPORT_GROUP_LABELS.duplicates,
  balance: 'Balance difference',
  onchain: 'Chain disagrees',
};

/** A ticket as the desktop UI lists it. Times are Unix milliseconds. */
export const TicketSummary = z.object({
  ticket_id: z.string(),
  kind: ExceptionKind,
  wallet_id: z.string().meta({ description: '"" when the exception belongs to no one wallet' }),
  transaction_id: z.string().meta({ description: '"" when there is no record (not in ledger, balance)' }),
  status: TicketStatus,
  chain_id: z.string(),
  token_id: z.string(),
  /** The record's amount (or the claim's, when there is no record); "" when unknown. */
  amount: z.string(),
  abnormals: z
    .string()
    .meta({ description: 'False flags, comma-separated, in the order chain_id,token_id,to,status,type,amount,fee,amount_actual,time' }),
  desc: z.string().meta({ description: 'Per field, what was claimed and what is recorded' }),
  run_id: z.string().nullable(),
  /** One more at every change of the ticket: sent back as `seen` with a transition (optimistic concurrency). */
  version: z.number().int(),
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

export const TICKET_SORTS = ['updated_at', 'created_at', 'amount', 'kind', 'status'] as const;

export const TicketListInput = z.object({
  ...PageQuery,
  status: TicketStatus.optional(),
  kind: ExceptionKind.optional(),
  wallet_id: Uuid.optional(),
  chain_id: z.string().optional(),
  token_id: z.string().optional(),
  /** The reconciliation run that last opened or updated the exception. */
  run_id: z.string().optional(),
  /** A false flag the exception must have (mismatches), e.g. amount. */
  field: FlagField.optional(),
  /** Amount bounds, inclusive, compared exactly as decimal numbers (never as floats). */
  amount_min: Amount.optional(),
  amount_max: Amount.optional(),
  /** Only exceptions opened at least this many days ago. */
  older_than_days: z.number().int().min(0).optional(),
  /** Words found in the description, the hash, the ids or the claim (case-insensitive). */
  search: z.string().max(200, { error: 'must be at most 200 characters' }).optional(),
  sort: z.enum(TICKET_SORTS).default('updated_at'),
  order: z.enum(['asc', 'desc']).default('desc'),
});
export type TicketListInput = z.output<typeof TicketListInput>;

const TicketRef = z.object({ ticket_id: requiredString() });

const Note = z.string().max(2000, { error: 'must be at most 2000 characters' });

/** Resolving or dismissing needs a reason; a reopen may say why. */
const reasonRule = (v: { to: TicketStatus; note?: string }) => v.to === 'Pending' || (v.note ?? '').trim() !== '';
const REASON = { error: 'is required when resolving or dismissing: say why', path: ['note'] };

/**
 * The ticket as the caller last saw it (its status and version): a transition that carries it is
 * refused (3006, nothing written) when the ticket changed since, naming who changed it, to what and
 * when. The window always sends it; the command line, which reads and changes at once, need not.
 */
const Seen = z.object({ status: TicketStatus, version: z.number().int().min(0) });
export type TicketSeen = z.output<typeof Seen>;

const TicketTransitionInput = z
  .object({
    ticket_id: requiredString(),
    to: TicketStatus,
    note: Note.optional(),
    seen: Seen.optional(),
  })
  .refine(reasonRule, REASON);

/** Many tickets at once, all to the same status with the same reason; every one or none. */
const TicketsTransitionInput = z
  .object({
    ticket_ids: z.array(requiredString()).min(1, { error: 'must name at least one ticket' }).max(10_000),
    to: TicketStatus,
    note: Note.optional(),
    /** What the caller saw of each ticket, by id (each one of ticket_ids); a ticket left out is changed from the status it has. */
    seen: z.record(z.string(), Seen).optional(),
  })
  .refine(reasonRule, REASON);

const TicketsTransitionResult = z.object({ changed: z.number().int() });

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
  'tickets-transition': { input: TicketsTransitionInput, output: TicketsTransitionResult },
  'ticket-lookup': { readOnly: true, input: TicketLookupQuery, output: TicketPublic },
};
