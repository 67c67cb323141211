import type { HandlerName, HandlerResult, HandlerInput } from '../../shared/contract';
import { CHANGE_TOPICS, EVERYTHING_CHANGED, MAX_CHANGE_IDS, StoreChange, type ChangeTopic } from '../../shared/changes';
import type { OnchainCheck } from '../../shared/onchain';
import { EXCEPTION_KIND_LABELS, type TicketSummary } from '../../shared/tickets';
import type { ServiceContext } from './context';
import { EVERYTHING, type StoreChanges } from './engine/index';
import { DONE } from './tickets/rules';

/*
 * The window sees others' work without a reload: every call of the handler map that changes what
 * another window shows (a ticket, an import, a run, the catalogue, a setting) is announced on the
 * store's word of a change (ctx.changes: in the process on SQLite, LISTEN/NOTIFY on PostgreSQL)
 * once it has succeeded, whichever door it came through (the window, the command line, /nps), with
 * its actor; a check against the chain, which runs in the background, is announced by its runner
 * when it starts and when it ends (onchain/checks.ts). Each window follows the word through its
 * door (IPC, or GET /app/events) and hears everything but its own calls.
 *
 * What lives in the data folder rather than the store (a chain's node, the user's name) is the
 * service's own: word of it reaches the windows of this service only, not those of the other
 * services on a shared store, whose folders did not change.
 *
 * A word is never a secret: a node's URL may carry the provider's key, and a new API key's secret
 * is shown once to whoever made it; a word says that they changed, never what they are.
 */

/** A change as a call announces it (the actor and the moment are added by the handler map). */
export type Change = Omit<StoreChange, 'actor' | 'at'> & {
  /** About this service's data folder, not the store: for its own windows only. */
  local?: true;
};

/** What a call changed, said for the other windows; undefined when it changed nothing they show. */
type Announcer<N extends HandlerName> = (input: HandlerInput<N>, result: HandlerResult<N>) => Change | undefined;

const short = (id: string) => id.slice(0, 8);
/**
 * A ticket as the queue shows it: its kind and amount beside the start of its id (tickets opened
 * together share the id's first digits, the moment they were made).
 */
const ticketText = (t: TicketSummary) =>
  `${EXCEPTION_KIND_LABELS[t.kind]} ${short(t.ticket_id)}${t.amount ? ` (${t.amount} ${t.token_id})` : ''}`;
const idsOf = (ids: readonly string[]) => (ids.length <= MAX_CHANGE_IDS ? [...ids] : []);
const count = (n: number, one: string) => `${n.toLocaleString('en-US')} ${one}${n === 1 ? '' : 's'}`;
/** The fields a patch names besides its key: "(name, confirming_threshold)". */
const fieldsOf = (patch: object, key: string) => {
  const fields = Object.keys(patch).filter((f) => f !== key);
  return fields.length > 0 ? ` (${fields.join(', ')})` : '';
};
/** A patch that only switches `enabled` (or a token's deposits or withdrawals) says so in words. */
const switched = (patch: object, key: string, words: Record<string, [string, string]>): string | undefined => {
  const entries = Object.entries(patch).filter(([f]) => f !== key);
  if (entries.length !== 1) return undefined;
  const [field, value] = entries[0]!;
  const said = words[field];
  return said && typeof value === 'boolean' ? said[value ? 0 : 1] : undefined;
};
const contractText = (t: { chain_id: string; contract_address: string; symbol: string }) =>
  `${t.symbol ? `${t.symbol} ` : ''}contract ${t.contract_address} on ${t.chain_id}`;
const label = (k: { label: string }) => `API key "${k.label}"`;
/** A wallet by its name, or the start of its id while an import's wallet has none. */
const walletText = (w: { wallet_id: string; name: string }) => (w.name ? `"${w.name}"` : short(w.wallet_id));

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

  'catalogue-chain-add': (_input, c) => ({ topic: 'catalogue', what: `Chain ${c.chain_id} (${c.name}) added`, ids: [c.chain_id] }),
  'catalogue-chain-update': (input, c) => ({
    topic: 'catalogue',
    what: `Chain ${c.chain_id} ${switched(input, 'chain_id', { enabled: ['enabled', 'disabled'] }) ?? `edited${fieldsOf(input, 'chain_id')}`}`,
    ids: [c.chain_id],
  }),
  'catalogue-token-add': (_input, t) => ({ topic: 'catalogue', what: `Token ${t.token_id} (${t.symbol}) added`, ids: [t.token_id] }),
  'catalogue-token-update': (input, t) => ({
    topic: 'catalogue',
    what: `Token ${t.token_id} ${
      switched(input, 'token_id', {
        can_deposit: ['open to deposits', 'closed to deposits'],
        can_withdraw: ['open to withdrawals', 'closed to withdrawals'],
      }) ?? `edited${fieldsOf(input, 'token_id')}`
    }`,
    ids: [t.token_id],
  }),
  'catalogue-token-remove': (_input, t) => ({ topic: 'catalogue', what: `Token ${t.token_id} (${t.symbol}) removed`, ids: [t.token_id] }),
  'catalogue-token-ignore': (_input, t) => ({ topic: 'catalogue', what: `The ${contractText(t)} ignored`, ids: [] }),
  'catalogue-token-unignore': (_input, t) => ({ topic: 'catalogue', what: `The ${contractText(t)} no longer ignored`, ids: [] }),

  // The URL is not said: it may carry the provider's key.
  'onchain-node-set': (_input, n) => ({ topic: 'settings', what: `The node of ${n.chain_id} set`, ids: [n.chain_id], local: true }),
  'onchain-node-clear': (_input, n) => ({ topic: 'settings', what: `The node of ${n.chain_id} cleared`, ids: [n.chain_id], local: true }),
  'app-user-set': (_input, u) => ({ topic: 'settings', what: `This desktop's name set to ${u.name}`, ids: [], local: true }),
  // The secret a new key comes with is not said: only its label and public key.
  'keys-create': (_input, k) => ({ topic: 'settings', what: `${label(k)} created`, ids: [k.api_key] }),
  'keys-add': (_input, k) => ({ topic: 'settings', what: `${label(k)} added`, ids: [k.api_key] }),
  'keys-update': (_input, k) => ({ topic: 'settings', what: `${label(k)} changed`, ids: [k.api_key] }),
  'keys-revoke': (_input, k) => ({ topic: 'settings', what: `${label(k)} revoked`, ids: [k.api_key] }),
  'retention-apply': (_input, r) =>
    r.removed.runs + r.removed.items === 0
      ? undefined
      : {
          topic: 'runs',
          what: `Old runs trimmed: ${count(r.removed.runs, 'run')} removed, ${count(r.removed.items, 'item')} removed in all`,
          ids: [],
        },
  'retention-set': (_input, p) => ({
    topic: 'settings',
    what: `Runs kept whole set to the last ${count(p.days, 'day')} or ${count(p.runs, 'run')}`,
    ids: [],
  }),

  'wallet-create': (_input, w) => ({ topic: 'wallets', what: `Wallet ${walletText(w)} created`, ids: [w.wallet_id] }),
  'wallet-update': (input, w) => ({
    topic: 'wallets',
    what: `Wallet ${walletText(w)} edited${fieldsOf(input, 'wallet_id')}`,
    ids: [w.wallet_id],
  }),
  'wallet-address-add': (input, w) => ({
    topic: 'wallets',
    what: `Address ${input.address} on ${input.chain_id} added to wallet ${walletText(w)}`,
    ids: [w.wallet_id],
  }),
  'wallet-address-remove': (input, w) => ({
    topic: 'wallets',
    what: `Address ${input.address} on ${input.chain_id} removed from wallet ${walletText(w)}`,
    ids: [w.wallet_id],
  }),

  'books-mapping-save': (_input, m) => ({ topic: 'mappings', what: `Books mapping "${m.name}" saved`, ids: [m.mapping_id] }),
  'books-mapping-update': (_input, m) => ({ topic: 'mappings', what: `Books mapping "${m.name}" changed`, ids: [m.mapping_id] }),
  'books-mapping-remove': (_input, m) => ({ topic: 'mappings', what: `Books mapping "${m.name}" removed`, ids: [m.mapping_id] }),
};

/** A check against the chain that started (or resumed) or came to its end, as its runner announces it (onchain/checks.ts). */
export function checkChange(c: OnchainCheck): Change {
  const records = count(c.total, 'record');
  const what =
    c.state === 'running'
      ? `A check against the chain of ${records} started`
      : c.state === 'done'
        ? `A check against the chain of ${records} finished (${c.summary.agrees.toLocaleString('en-US')} agree, ${c.summary.differs.toLocaleString('en-US')} differ, ${c.summary.not_found.toLocaleString('en-US')} not on the chain, ${c.summary.pending.toLocaleString('en-US')} not final)`
        : c.state === 'cancelled'
          ? `A check against the chain cancelled at ${c.done.toLocaleString('en-US')} of ${records}`
          : `A check against the chain stopped at ${c.done.toLocaleString('en-US')} of ${records} (${c.state})`;
  return { topic: 'checks', what, ids: [c.check_id] };
}

/** What the handler map announces after a call of `name` succeeded, or undefined. */
export function changeOf(name: HandlerName, input: unknown, result: unknown): Change | undefined {
  const announcer = ANNOUNCERS[name] as Announcer<HandlerName> | undefined;
  return announcer?.(input as HandlerInput<HandlerName>, result as HandlerResult<HandlerName>);
}

/**
 * The word as it travels: the change, the service and the window it came from (which does not
 * hear it: window names are a service's own, the desktop's is the same in every desktop), and
 * whether it is about that service's data folder (only that service's windows hear it).
 */
interface Word {
  change: StoreChange;
  instance: string;
  window?: string;
  local?: true;
}

/**
 * Tell every window (of every service on the store; of this service only, for a `local` change)
 * what changed; a word that cannot go out is logged, never the call's failure.
 */
export function announceChange(ctx: ServiceContext, { local, ...change }: StoreChange & { local?: true }, window?: string): void {
  const word: Word = {
    change: { ...change, what: change.what.slice(0, 300) },
    instance: ctx.instance,
    ...(window ? { window } : {}),
    ...(local ? { local } : {}),
  };
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
 * Follow the store's changes for one window of the service `instance` (ctx.instance): every change
 * but the window's own and other services' local ones, parsed, sent in order. `send` answers false
 * when the window is not taking more (a stream's buffer is full): changes are then held, at most
 * `maxQueued`; past that they are dropped for one EVERYTHING word (the window reloads every view),
 * so a slow or gone window never grows the service's memory.
 */
export function followChanges(
  changes: StoreChanges,
  opts: { instance: string; window?: string; send: (change: StoreChange) => boolean; maxQueued?: number },
): ChangeFollower {
  const max = opts.maxQueued ?? MAX_QUEUED_CHANGES;
  let held: StoreChange[] = [];
  let taking = true;
  let closed = false;
  /** The last word offered was EVERYTHING: the window reloads every view, and another one right after says nothing more. */
  let toldEverything = false;
  const offer = (change: StoreChange) => {
    if (closed) return;
    // A broken listener hears EVERYTHING once per topic: one reload does.
    if (change === EVERYTHING_CHANGED && toldEverything) return;
    toldEverything = change === EVERYTHING_CHANGED;
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
    const ours = word.instance === opts.instance;
    if (ours && opts.window !== undefined && word.window === opts.window) return;
    if (word.local && !ours) return;
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
