import { EventEmitter } from 'node:events';
import type pg from 'pg';

/*
 * Word that something in the store changed, to every service on it: what the window's event
 * stream listens to (service/changes.ts), what the catalogue's kept answers are dropped by
 * (catalogue/version.ts), and what the ledger's counts will listen to in team mode (docs/team.md). On SQLite one process holds the store, so
 * the word stays in the process; on PostgreSQL it goes through LISTEN/NOTIFY, in place of
 * `PRAGMA data_version`.
 */

/** Every topic: what a listener hears when it may have missed words (its connection to the store broke). */
export const EVERYTHING = '*';

/** Hears a topic's word, with its detail when it has one (none with EVERYTHING). */
type ChangeListener = (topic: string, detail?: string) => void;

export interface StoreChanges {
  /**
   * Tell every service on the store (this one too) that `topic` changed; `detail` says what, in a
   * few hundred bytes at most (PostgreSQL's NOTIFY takes 8000). A topic has no newline.
   */
  announce(topic: string, detail?: string): Promise<void>;
  /** Hear `topic`'s announcements, and EVERYTHING when some may have been missed; returns the way to stop. */
  on(topic: string, listener: ChangeListener): () => void;
  close(): Promise<void>;
}

function listeners() {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0);
  return {
    emit(topic: string, detail?: string) {
      if (topic === EVERYTHING) for (const name of emitter.eventNames()) emitter.emit(name, EVERYTHING);
      else emitter.emit(topic, topic, detail);
    },
    on(topic: string, listener: ChangeListener) {
      emitter.on(topic, listener);
      return () => void emitter.off(topic, listener);
    },
  };
}

/** The embedded store's: one process, so the word stays in it. */
export function localStoreChanges(): StoreChanges {
  const heard = listeners();
  return {
    announce: async (topic, detail) => heard.emit(topic, detail),
    on: heard.on,
    close: async () => undefined,
  };
}

const CHANNEL = 'nps_store_changes';

/**
 * A team store's: a connection of its own LISTENs on one channel. When it breaks, every listener
 * hears EVERYTHING (a word may have been lost meanwhile), and it listens again after `retryMs`,
 * until closed.
 */
export async function postgresStoreChanges(pool: pg.Pool, opts: { retryMs?: number } = {}): Promise<StoreChanges> {
  const retryMs = opts.retryMs ?? 1_000;
  const heard = listeners();
  let closed = false;
  /** The listening connection, while it listens. */
  let client: { c: pg.PoolClient; detach: () => void } | undefined;
  let retry: NodeJS.Timeout | undefined;

  const again = () => {
    if (closed) return;
    retry = setTimeout(() => {
      retry = undefined;
      if (!closed) listen().catch(again);
    }, retryMs);
  };

  /** Listen on a connection of its own; throws if the store cannot be reached. */
  const listen = async (): Promise<void> => {
    const c = await pool.connect();
    const onNotification = (n: pg.Notification) => {
      if (n.channel !== CHANNEL || n.payload === undefined) return;
      const nl = n.payload.indexOf('\n');
      if (nl < 0) heard.emit(n.payload);
      else heard.emit(n.payload.slice(0, nl), n.payload.slice(nl + 1));
    };
    const onError = (err: Error) => lost(err);
    const onEnd = () => lost();
    const detach = () => {
      c.off('notification', onNotification);
      c.off('error', onError);
      c.off('end', onEnd);
    };
    const lost = (err?: Error) => {
      detach();
      if (client?.c === c) client = undefined;
      c.release(err ?? true);
      if (closed) return;
      heard.emit(EVERYTHING);
      again();
    };
    c.on('notification', onNotification);
    c.on('error', onError);
    c.on('end', onEnd);
    try {
      await c.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      detach();
      c.release(err instanceof Error ? err : true);
      throw err;
    }
    client = { c, detach };
  };
  await listen();

  return {
    async announce(topic, detail) {
      await pool.query('SELECT pg_notify($1, $2)', [CHANNEL, detail === undefined ? topic : `${topic}\n${detail}`]);
    },
    on: heard.on,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const listening = client;
      client = undefined;
      if (listening) {
        listening.detach();
        await listening.c.query(`UNLISTEN ${CHANNEL}`);
        listening.c.release();
      }
    },
  };
}
