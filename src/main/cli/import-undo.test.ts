import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nps } from './nps.test-support';

const dataDir = mkdtempSync(join(tmpdir(), 'nps-undo-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const exported = async () => (await nps(['ledger', 'export', '--data-dir', dataDir])).out;

describe('npm run nps -- import undo', () => {
  it('says what will change; without a terminal it undoes only with --yes; once undone, never again', async () => {
    const first = await nps(['import', 'resources/samples/native-ledger.csv', '--data-dir', dataDir, '--json']);
    expect(first.code).toBe(0);
    const before = await exported();
    // The same records, one amount changed, one record more.
    const lines = before.trim().split('\n');
    const cells = lines[1]!.split(',');
    cells[lines[0]!.split(',').indexOf('amount')] = '42';
    const second = join(dataDir, 'second.csv');
    writeFileSync(second, [lines[0], cells.join(','), lines[2]!.replace(/^[0-9a-f]{8}/, 'ffffffff')].join('\n') + '\n');
    const imported = JSON.parse((await nps(['import', second, '--data-dir', dataDir, '--json'])).out) as { import_id: string };
    const changed = await exported();
    expect(changed).not.toBe(before);

    const asked = await nps(['import', 'undo', imported.import_id, '--data-dir', dataDir]);
    expect(asked.code).not.toBe(0);
    expect(asked.err).toMatch(/^Undo import [0-9a-f-]{36}: second\.csv \(finished [0-9T:-]+Z\)\n/);
    expect(asked.err).toMatch(/\nimport undo: no terminal to confirm on; give --yes to undo\. Nothing was changed\.\n$/);
    expect(await exported()).toBe(changed);

    const done = await nps(['import', 'undo', imported.import_id, '--yes', '--data-dir', dataDir]);
    expect(done.code).toBe(0);
    expect(done.err).toMatch(
      /^Undo import [0-9a-f-]{36}: second\.csv \(finished [0-9T:-]+Z\)\n {2}1 record it added will be removed\n {2}1 record it updated will be restored to their earlier version\n {2}0 Pending tickets on the removed records will be dismissed\n$/,
    );
    expect(done.out).toMatch(
      /^Undone import [0-9a-f-]{36}: second\.csv .*\n {2}removed 1 record it added\n {2}restored 1 record it updated to their earlier version\n {2}dismissed 0 Pending tickets/,
    );
    expect(done.out).toMatch(/\n {2}by the command line, [0-9T:-]+Z\n$/);
    expect(await exported()).toBe(before);

    const again = await nps(['import', 'undo', imported.import_id, '--yes', '--data-dir', dataDir]);
    expect(again.code).toBe(1);
    expect(again.err).toBe(`error 1002: import_id: import ${imported.import_id} (second.csv) was already undone by the command line\n`);
  }, 180_000);
});
