import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nps } from './nps.test-support';
import { busyMessage, isBusy, takeDataFolder } from '../service/data-folder';
import { startServe, type ServingProcess } from './serve.test-support';
import { sayFor } from '../service/said';

/*
 * One data folder, one writer: while `serve` runs on a folder, the command line's writes go
 * through it (never a second connection writing beside it), a second `serve` is refused in one
 * line, and the service's log (logs/ in the folder, written out at the latest when it stops) has a
 * line per request and each import. The tests run in order on one service.
 */

const root = join(import.meta.dirname, '../../..');
const dataDir = mkdtempSync(join(tmpdir(), 'nps-one-writer-'));
let serving: ServingProcess;
let child: ChildProcess;
let url: string;
/** The secret `keys create` printed once: it must be nowhere in the log. */
let secret: string;

const logLines = (): Record<string, unknown>[] =>
  readdirSync(join(dataDir, 'logs'))
    .filter((f) => f.endsWith('.log'))
    .flatMap((f) =>
      readFileSync(join(dataDir, 'logs', f), 'utf8')
        .trim()
        .split('\n'),
    )
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  serving = await startServe(dataDir);
  child = serving.child;
  url = serving.url;
}, 90_000);
afterAll(async () => {
  await serving.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('while serve runs on the data folder', () => {
  it('an import from the command line goes through the service', async () => {
    const sample = join(root, 'resources', 'samples', 'native-ledger.csv');
    const imported = await nps(['import', sample, '--data-dir', dataDir]);
    expect(imported.code).toBe(0);
    expect(imported.out).toMatch(/added 30, updated 0, unchanged 0, rejected 0/);
    // The service answers with what the command wrote: it is the one store.
    const page = (await (await fetch(`${url}/nps/chains?chain_id=ETH`)).json()) as { status: number };
    expect(page.status).toBe(0);
    const keys = await nps(['keys', 'create', '--label', 'through-the-service', '--data-dir', dataDir]);
    expect(keys.code).toBe(0);
    secret = /API secret: ([0-9a-f]{64})/.exec(keys.out)![1]!;
  }, 90_000);

  it('a second serve (or the desktop app) on the same folder says in one line that one runs, and where', async () => {
    const line = `a service already runs on ${dataDir}: ${url}/nps (process ${child.pid}); stop it first, or use --data-dir for another folder`;
    const second = await nps(['serve', '--port', '0', '--data-dir', dataDir]);
    expect(second.code).toBe(1);
    expect(second.err.trim()).toBe(line);
    // The desktop app takes the folder the same way before it opens the store, and shows this line instead of starting.
    const taken = takeDataFolder(dataDir);
    expect(isBusy(taken) && { busy: true, pid: taken.pid }).toEqual({ busy: true, pid: child.pid });
    const said = isBusy(taken) ? await busyMessage(dataDir, taken) : '';
    expect(sayFor(said, 'cli')).toBe(line);
    // The desktop app's dialog names another data folder its own way, not by a flag.
    expect(sayFor(said, 'window')).toBe(
      line.replace('use --data-dir for another folder', 'start the app on another data folder (NPS_DATA_DIR)'),
    );
    const free = takeDataFolder(mkdtempSync(join(tmpdir(), 'nps-none-')));
    expect(isBusy(free)).toBe(false);
    if (!isBusy(free)) free.release();
    // The refused service removed nothing of the running one's.
    expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(['api.json', 'local.token', 'nps.lock']));
  }, 60_000);

  it('the log (written on close) has a line per request, the import through the service, and no secret', async () => {
    await serving.stop();
    const lines = logLines();
    expect(lines).toContainEqual(expect.objectContaining({ method: 'POST', path: '/local/rpc/ledger-import', status: 200 }));
    expect(lines).toContainEqual(expect.objectContaining({ event: 'import', by: 'cli', file: 'native-ledger.csv', added: 30 }));
    expect(lines).toContainEqual(expect.objectContaining({ method: 'GET', path: '/nps/chains', status: 200, ms: expect.any(Number) }));
    // Never a secret: the key's secret printed once to the command line is nowhere in the log.
    expect(JSON.stringify(lines)).not.toContain(secret);
    expect(lines).toContainEqual(expect.objectContaining({ method: 'POST', path: '/local/rpc/keys-create', status: 200 }));
  }, 60_000);
});
