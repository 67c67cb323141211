import { z } from 'zod';

/**
 * What the window hears of others' work (the service's event stream: IPC in Electron, Server-Sent
 * Events at GET /app/events in browser mode): a ticket changed, an import landed or was undone, a
 * verification or reconciliation run finished, old runs trimmed by retention (`runs`); a chain or
 * token added, edited or removed, a contract ignored or no longer (`catalogue`); a setting the
 * window shows changed: a chain's node set or cleared, the user's name, an API key, the retention
 * policy (`settings`); a check against the chain started or came to its end (`checks`); a wallet
 * made, renamed, or an address added or removed (`wallets`); a books mapping saved, changed or
 * removed (`mappings`). `everything`: words may have been missed (the stream broke, or the window
 * fell behind), so every view reloads.
 */
export const CHANGE_TOPICS = [
  'tickets',
  'imports',
  'runs',
  'catalogue',
  'settings',
  'checks',
  'wallets',
  'mappings',
  'everything',
] as const;
export const ChangeTopic = z.enum(CHANGE_TOPICS);
export type ChangeTopic = z.infer<typeof ChangeTopic>;

export const StoreChange = z.object({
  topic: ChangeTopic,
  /**
   * One short sentence without the actor: "Not in books 01a21df9 (400 ETH_USDC) resolved", "Import
   * of january.csv landed (30 records added, 0 updated)", "Token ETH_PEPE (PEPE) added". Never a
   * secret: a node's URL (which may carry a provider's key) or an API key's secret is not said, only
   * that it changed.
   */
  what: z.string(),
  /** The tickets, import, run, chain, token, API key, check, wallet or mapping concerned (at most MAX_CHANGE_IDS; a larger change names none). */
  ids: z.array(z.string()),
  /** Who: the desktop's named user (or the door, until one is named), or `api:<key>`. */
  actor: z.string(),
  /** Unix milliseconds. */
  at: z.number().int(),
});
export type StoreChange = z.infer<typeof StoreChange>;

/** A change names this many ids at most, so that one word stays small on every engine (PostgreSQL's NOTIFY takes 8000 bytes). */
export const MAX_CHANGE_IDS = 50;

/** The word that tells a window to reload every view. */
export const EVERYTHING_CHANGED: StoreChange = { topic: 'everything', what: '', ids: [], actor: '', at: 0 };
