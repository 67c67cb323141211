import { execFile, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';
import { startServe } from '../cli/serve.test-support';
import { LOG_FILE_BYTES } from './log';

/*
 * The log under a flood of requests, against `serve` as the user runs it: every file stays within
 * its 10 MiB, five at most; and with the log's disk full, the service's memory stays flat and, once
 * there is room again, one line says how many lines were lost. Before: 150,000 requests in 18 s
 * made one 131 MB file, and on a full disk lines piled up in memory (125 MB per 100,000 requests).
 *
 * The full disk is a real one, a 1 MiB tmpfs mounted on the data folder's logs/, where the tests
 * may mount (root); elsewhere that case is skipped here, and log-file.test.ts gives the writer a
 * file system whose writes fail with ENOSPC instead.
 */

const AUTOCANNON = createRequire(import.meta.url).resolve('autocannon');
const work = mkdtempSync(join(tmpdir(), 'nps-log-flood-'));
const mounted: string[] = [];
afterAll(() => {
  for (const dir of mounted) spawnSync('umount', [dir]);
  rmSync(work, { recursive: true, force: true });
});

/** `count` requests from 20 connections (autocannon, a process of its own): how many were answered. */
async function flood(url: string, count: number): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, [AUTOCANNON, '--json', '-c', '20', '-a', String(count), '-t', '10', url], {
    maxBuffer: 16 * 1024 * 1024,
    timeout: 180_000,
  });
  const result = JSON.parse(stdout) as { '2xx': number; non2xx: number; errors: number };
  return result['2xx'] + result.non2xx;
}

const logFiles = (dataDir: string) =>
  readdirSync(join(dataDir, 'logs'))
    .filter((f) => /^nps\.\d+\.log$/.test(f))
    .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));

const rssMiB = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/** Mount a tmpfs of `size` on dir (root only): whether it could be. */
function mountTmpfs(dir: string, size: string): boolean {
  if (process.getuid?.() !== 0) return false;
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir]);
  if (r.status === 0) mounted.push(dir);
  return r.status === 0;
}

describe('the log under a flood', () => {
  test('100,000 requests: every log file stays within its 10 MiB, five files at most, the last request logged', async () => {
    const dataDir = join(work, 'flood');
    const serving = await startServe(dataDir, ['--read-limit', '0']);
    try {
      // 150 bytes of path, so that 100,000 lines fill more than one file.
      const answered = await flood(`${serving.url}/nps/chains?page_size=1&chain_id=${'X'.repeat(150)}`, 100_000);
      expect(answered).toBe(100_000);
      await fetch(`${serving.url}/nps/tokens?page_size=1`);
    } finally {
      await serving.stop();
    }
    const files = logFiles(dataDir);
    const sizes = files.map((f) => statSync(join(dataDir, 'logs', f)).size);
    console.log(`log files after 100,000 requests: ${files.map((f, i) => `${f} ${(sizes[i]! / 1024 / 1024).toFixed(2)} MiB`).join(', ')}`);
    expect(files.length).toBeGreaterThan(1);
    expect(files.length).toBeLessThanOrEqual(5);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(LOG_FILE_BYTES);
    const last = readFileSync(join(dataDir, 'logs', files.at(-1)!), 'utf8')
      .trim()
      .split('\n');
    expect(last.some((l) => l.includes('"path":"/nps/tokens"'))).toBe(true);
    expect(JSON.parse(last.at(-1)!)).toMatchObject({ event: 'stop' });
  }, 300_000);

  test.skipIf(process.getuid?.() !== 0)(
    'with the log’s disk full (a 1 MiB tmpfs), 100,000 requests leave the memory flat; once there is room, one line counts the lines lost',
    async () => {
      const dataDir = join(work, 'full');
      mkdirSync(join(dataDir, 'logs'), { recursive: true, mode: 0o700 });
      if (!mountTmpfs(join(dataDir, 'logs'), '1m')) return void console.log('tmpfs could not be mounted: skipped');
      const serving = await startServe(dataDir, ['--read-limit', '0']);
      const pid = serving.child.pid!;
      try {
        const url = `${serving.url}/nps/chains?page_size=1&chain_id=${'X'.repeat(150)}`;
        // Fill the disk, and let the service's memory reach its working size.
        await flood(url, 20_000);
        const before = rssMiB(pid);
        expect(await flood(url, 100_000)).toBe(100_000);
        const after = rssMiB(pid);
        console.log(
          `resident memory with the log's disk full: ${before.toFixed(1)} MiB before 100,000 requests, ${after.toFixed(1)} MiB after`,
        );
        expect(after - before).toBeLessThan(20);
        // Room again: the next lines are written, the first of them counting what was lost.
        expect(spawnSync('mount', ['-o', 'remount,size=64m', join(dataDir, 'logs')]).status).toBe(0);
        await new Promise((r) => setTimeout(r, 1_100));
        for (let i = 0; i < 3; i++) await fetch(`${serving.url}/nps/tokens?page_size=1`);
      } finally {
        await serving.stop();
      }
      const lines = logFiles(dataDir).flatMap((f) => readFileSync(join(dataDir, 'logs', f), 'utf8').split('\n'));
      const lost = lines
        .filter((l) => l.includes('"event":"log-lines-lost"'))
        .map((l) => JSON.parse(l) as { lines: number; cause: string });
      expect(lost).toHaveLength(1);
      expect(lost[0]!.lines).toBeGreaterThan(100_000);
      expect(lost[0]!.cause).toMatch(/ENOSPC/);
      const at = lines.findIndex((l) => l.includes('"event":"log-lines-lost"'));
      expect(lines.slice(at + 1).filter((l) => l.includes('"path":"/nps/tokens"'))).toHaveLength(3);
    },
    300_000,
  );
});
