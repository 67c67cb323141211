import { describe, expect, test } from 'vitest';
import { EVERYTHING, localStoreChanges } from '../engine/index';
import { followCatalogue } from './version';

/*
 * The catalogue's version, which the kept /nps pages are checked against: it moves on word of a
 * catalogue change and on EVERYTHING (a broken LISTEN connection may have lost words), on this
 * service's own write, and on SQLite when another connection committed; never on other topics.
 */

describe("the catalogue's version", () => {
  test('moves on the catalogue topic, on EVERYTHING and on an own write; not on other topics; no more once stopped', async () => {
    const changes = localStoreChanges();
    const version = followCatalogue(changes);
    const seen = [version.read()];
    const moved = () => {
      const now = version.read();
      const was = seen.at(-1);
      seen.push(now);
      return now !== was;
    };
    await changes.announce('tickets', '{}');
    await changes.announce('settings', '{}');
    expect(moved()).toBe(false);
    await changes.announce('catalogue', '{}');
    expect(moved()).toBe(true);
    await changes.announce(EVERYTHING);
    expect(moved()).toBe(true);
    version.changed();
    expect(moved()).toBe(true);
    expect(new Set(seen).size).toBe(seen.length - 1);
    version.stop();
    await changes.announce('catalogue', '{}');
    expect(moved()).toBe(false);
  });

  test("on SQLite, another connection's commit moves it too", () => {
    let commits = 0;
    const version = followCatalogue(localStoreChanges(), () => commits);
    const before = version.read();
    expect(version.read()).toBe(before);
    commits++;
    expect(version.read()).not.toBe(before);
  });
});
