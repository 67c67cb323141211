import type { StoreChanges } from '../engine/index';

/*
 * The catalogue's version: it moves whenever the catalogue may have changed, and answers built
 * from the catalogue stay good while it stays the same (the HTTP door keeps the written /nps chain
 * and token pages by it, since the catalogue is what local tools read most). Reading it costs a
 * counter, and on SQLite a pragma that reads no page: never a query of the catalogue itself.
 *
 * It moves when the `catalogue` topic is heard on the store's word of a change (every service's
 * catalogue writes are announced there: service/changes.ts; so is a seed that changed something),
 * and when EVERYTHING is heard (a broken LISTEN connection: words may have been lost). A write
 * through this service moves it at once too: on PostgreSQL its own word comes back a round trip
 * later, and the next read through this service must already see the write.
 */

export interface CatalogueVersion {
  /** The version now: read before an answer is built, so an answer kept under it was built after. */
  read(): string;
  /** This service wrote the catalogue. */
  changed(): void;
  /** Stop hearing the store's words (the service closes). */
  stop(): void;
}

/**
 * Follow the catalogue's changes on `changes`. `dataVersion` (the embedded store's PRAGMA
 * data_version) also counts commits by other connections to a SQLite file, which announce nothing.
 * Within the app none writes the catalogue: the import thread only reads it, and the command line
 * sends its calls to the service running on the folder (cli/common.ts withService) rather than
 * open the store a second time. But the file is the user's, and a tool of theirs (the sqlite3
 * shell, a restore) may still write it while the service runs; the pragma keeps the kept answers
 * true then, for almost nothing.
 */
export function followCatalogue(changes: StoreChanges, dataVersion?: () => number): CatalogueVersion {
  let moves = 0;
  const stop = changes.on('catalogue', () => {
    moves++;
  });
  return {
    read: dataVersion ? () => `${moves}:${dataVersion()}` : () => String(moves),
    changed: () => {
      moves++;
    },
    stop,
  };
}
