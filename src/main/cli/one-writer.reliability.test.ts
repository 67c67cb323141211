import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { findService } from '../service/data-folder';

/*
 * Two `serve` started at the same moment on one data folder, ten times: exactly one runs each time,
 * the other is refused in one line, and the refused one leaves the survivor's api.json and
 * local.token where they are (before the folder's lock, both ran, 3 times out of 3, and the one
 * that stopped removed the other's files).
 */

const root = join(import.meta.dirname, '../../..');
const work = mkdtempSync(join(tmpdir(), 'nps-two-serve-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Outcome {
  pid: number;
  /** The base URL it printed, when it listened. */
  url?: string;
  /** Its exit code, when it ended. */
  code?: number | null;
  out: string;
  err: string;
  stop(): Promise<void>;
}

/** `serve --port 0 --data-dir D`, until it listens or ends (bounded). */
function serve(dataDir: string): Promise<Outcome> {
  const child = spawn(process.execPath, ['out/main/cli.js', 'serve', '--port', '0', '--data-dir', dataDir], { cwd: root });
  return new Promise((resolve) => {
    const outcome: Outcome = {
      pid: child.pid!,
      out: '',
      err: '',
      stop: () =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          child.once('exit', () => done());
          child.kill('SIGTERM');
        }),
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(outcome);
    }, 60_000);
    child.stdout.on('data', (c: Buffer) => {
      outcome.out += c.toString();
      const m = /listening on (http:\/\/\S+)\/nps/.exec(outcome.out);
      if (m && !outcome.url) {
        outcome.url = m[1]!;
        clearTimeout(timer);
        resolve(outcome);
      }
    });
    child.stderr.on('data', (c: Buffer) => (outcome.err += c.toString()));
    child.on('exit', (code) => {
      outcome.code = code;
      clearTimeout(timer);
      resolve(outcome);
    });
  });
}

test('two serve started at once on one folder, ten times: exactly one runs, the other says so in one line, the survivor’s files stay', async () => {
  for (let round = 0; round < 10; round++) {
    const dataDir = join(work, `round-${round}`);
    const both = await Promise.all([serve(dataDir), serve(dataDir)]);
    const running = both.filter((o) => o.url !== undefined);
    const refused = both.filter((o) => o.url === undefined);
    try {
      expect(running.length, `round ${round}: ${JSON.stringify(both.map((o) => o.err))}`).toBe(1);
      const [survivor] = running;
      const [loser] = refused;
      expect(loser!.code).toBe(1);
      const line = loser!.err.trim();
      expect(line.split('\n')).toHaveLength(1);
      // The survivor is named with its address when it listened in time, else as the process holding the folder.
      expect(
        line ===
          `a service already runs on ${dataDir}: ${survivor!.url}/nps (process ${survivor!.pid}); stop it first, or use --data-dir for another folder` ||
          line.startsWith(`another NPS Reconcile process (process ${survivor!.pid}) is using ${dataDir}`),
        line,
      ).toBe(true);
      // The refused one removed nothing: the survivor is found through its files, and answers.
      const found = await findService(dataDir);
      expect(found).toMatchObject({ origin: survivor!.url, pid: survivor!.pid });
      expect(JSON.parse(readFileSync(join(dataDir, 'api.json'), 'utf8'))).toMatchObject({ pid: survivor!.pid });
      await survivor!.stop();
      expect(existsSync(join(dataDir, 'api.json'))).toBe(false);
      expect(existsSync(join(dataDir, 'local.token'))).toBe(false);
    } finally {
      await Promise.all(both.map((o) => o.stop()));
    }
  }
}, 300_000);
