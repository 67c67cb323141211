import type { HandlerName, HandlerResult, HandlerInput } from '../../shared/contract';
import { CHANGE_TOPICS, EVERYTHING_CHANGED, MAX_CHANGE_IDS, StoreChange, type ChangeTopic } from '../../shared/changes';
import { EXCEPTION_KIND_LABELS, type TicketSummary } from '../../shared/tickets';
import type { ServiceContext } from './context';
import { EVERYTHING, type StoreChanges } from './engine/index';
import { DONE } from './tickets/rules';

/*
 * The window sees others' work without a reload: every call of the handler map that changes what
 * another window shows (a ticket, an import, a run) is announced on the store's word of a change
 * (ctx.changes: in the process on SQLite, LISTEN/NOTIFY on PostgreSQL) once it has succeeded,
 * whichever door it came through (the window, the command line, /nps), with its actor. Each
 * window follows the word through its door (IPC, or GET /app/events) and hears everything but
 * its own calls.
 */

/** What a call changed, said for the other windows; undefined when it changed nothing they show. */
type Announcer<N extends HandlerName> = (input: HandlerInput<N>, result: HandlerResult<N>) => Omit<StoreChange, 'actor' | 'at'> | undefined;

const short = (id: string) => id.slice(0, 8);
/**
 * A ticket as the queue shows it: its kind and amount beside the start of its id (tickets opened
 * together share the id's first digits, the moment they were made).
 */
const ticketText = (t: TicketSummary) =>
  `${EXCEPTION_KIND_LABELS[t.kind]} ${short(t.ticket_id)}${t.amount ? ` (${t.amount} ${t.token_id})` : ''}`;
const idsOf = (ids: readonly string[]) => (ids.length <= MAX_CHANGE_IDS ? [...ids] : []);
const count = (n: number, one: string) => `${n.toLocaleString('en-US')} ${one}${n === 1 ? '' : 's'}`;

const ANNOUNCERS: { [N in HandlerName]?: Announcer<N> } = {
  'ticket-transition': (_input, t) => ({ topic: 'tickets', what: `${ticketText(t)} ${DONE[t.status]}`, ids: [t.ticket_id] }),
  'tickets-transition': (input) => {
    const ids = [...new Set(input.ticket_ids.map((id) => id.toLowerCase()))];
    const what = ids.length === 1 ? `Ticket ${short(ids[0]!)} ${DONE[input.to]}` : `${count(ids.length, 'ticket')} ${DONE[input.to]}`;
    return { topic: 'tickets', what, ids: idsOf(ids) };
  },
  'balance-check': (_input, r) =>
    r.ticket_id === null
      ? undefined
      : {
          topic: 'tickets',
          what: `Balance difference ${short(r.ticket_id)} ${r.ticket_status === 'Resolved' ? 'resolved' : 'found'}`,
          ids: [r.ticket_id],
        },
  'ledger-import': (_input, r) =>
    r.import_id === null
      ? undefined
      : {
          topic: 'imports',
          what: `Import of ${r.file_name} landed (${count(r.added, 'record')} added, ${r.updated.toLocaleString('en-US')} updated)`,
          ids: [r.import_id],
        },
  'import-undo': (_input, r) => ({ topic: 'imports', what: `Import of ${r.file_name} undone`, ids: [r.import_id] }),
  'reconcile-verify-txs': (input, r) => {
    const mismatched = r.filter((x) => !x.result).length;
    return { topic: 'runs', what: `A verification of ${count(input.txs.length, 'claim')} finished (${mismatched} not matched)`, ids: [] };
  },
  'reconcile-books-run': (_input, r) => ({ topic: 'runs', what: `Reconciliation of ${r.label} finished`, ids: [r.run_id] }),
};

/** What the handler map announces after a call of `name` succeeded, or undefined. */
export function changeOf(name: HandlerName, input: unknown, result: unknown): Omit<StoreChange, 'actor' | 'at'> | undefined {
  const announcer = ANNOUNCERS[name] as Announcer<HandlerName> | undefined;
  return announcer?.(input as HandlerInput<HandlerName>, result as HandlerResult<HandlerName>);
}

/** The word as it travels: the change, and the window it came from (which does not hear it). */
interface Word {
  change: StoreChange;
  window?: string;
}

/** Tell every window (of every service on the store) what changed; a word that cannot go out is logged, never the call's failure. */
export function announceChange(ctx: ServiceContext, change: StoreChange, window?: string): void {
  const word: Word = { change: { ...change, what: change.what.slice(0, 300) }, ...(window ? { window } : {}) };
  ctx.changes.announce(change.topic, JSON.stringify(word)).catch((err: unknown) => {
    ctx.log.warn({ event: 'change-not-announced', topic: change.topic, err }, 'a change could not be announced to the windows');
  });
}

/** Changes held for a window that is not taking them (its stream's buffer full) before it is told to reload everything instead. */
export const MAX_QUEUED_CHANGES = 100;

export interface ChangeFollower {
  /** The window takes words again (its stream drained): send what was held. */
  resume(): void;
  /** Stop following (the window closed). */
  close(): void;
  /** Changes held now (never more than MAX_QUEUED_CHANGES). */
  readonly queued: number;
}

/**
 * Follow the store's changes for one window: every change but the window's own, parsed, sent in
 * order. `send` answers false when the window is not taking more (a stream's buffer is full):
 * changes are then held, at most `maxQueued`; past that they are dropped for one EVERYTHING word
 * (the window reloads every view), so a slow or gone window never grows the service's memory.
 */
export function followChanges(
  changes: StoreChanges,
  opts: { window?: string; send: (change: StoreChange) => boolean; maxQueued?: number },
): ChangeFollower {
  const max = opts.maxQueued ?? MAX_QUEUED_CHANGES;
  let held: StoreChange[] = [];
  let taking = true;
  let closed = false;
  const offer = (change: StoreChange) => {
    if (closed) return;
    // A broken listener hears EVERYTHING once per topic: one reload does.
    if (change === EVERYTHING_CHANGED && held.at(-1) === EVERYTHING_CHANGED) return;
    if (taking && held.length === 0) {
      taking = opts.send(change);
      return;
    }
    if (held.length >= max || held[0] === EVERYTHING_CHANGED) held = [EVERYTHING_CHANGED];
    else held.push(change);
  };
  const hear = (topic: string, detail?: string) => {
    if (topic === EVERYTHING || detail === undefined) return offer(EVERYTHING_CHANGED);
    let word: Word;
    try {
      word = JSON.parse(detail) as Word;
    } catch {
      return offer(EVERYTHING_CHANGED);
    }
    if (opts.window !== undefined && word.window === opts.window) return;
    const parsed = StoreChange.safeParse(word.change);
    offer(parsed.success ? parsed.data : EVERYTHING_CHANGED);
  };
  const stops = CHANGE_TOPICS.filter((t): t is Exclude<ChangeTopic, 'everything'> => t !== 'everything').map((t) => changes.on(t, hear));
  return {
    resume() {
      taking = true;
      while (!closed && taking && held.length > 0) taking = opts.send(held.shift()!);
    },
    close() {
      closed = true;
      held = [];
      for (const stop of stops) stop();
    },
    get queued() {
      return held.length;
    },
  };
}
