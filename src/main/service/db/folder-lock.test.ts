import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { BUSY, lockHolder, tryLock } from './folder-lock';

/*
 * The data folder's one-writer lock, asked for by several processes at the same instant: exactly
 * one holds it, every time. (Asked for with no wait, SQLite's shared-then-exclusive steps let two
 * askers both fail now and then, and then no one held the folder: two `serve` started together
 * were both refused.) And a lock is held until released, whatever becomes of its handle: one that
 * the garbage collector took let the folder go under a running `serve`.
 */

const work = mkdtempSync(join(tmpdir(), 'nps-folder-lock-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const module = join(import.meta.dirname, 'folder-lock.ts');

/** A process that asks for the lock at `at` (epoch ms), says `held` or `busy`, and keeps what it got until told to end. */
function asker(file: string, at: number) {
  const code = `
    import { lockHolder, tryLock } from ${JSON.stringify(module)};
    const late = Date.now() - ${at};
    while (Date.now() < ${at});
    // The handle is dropped at once, as a caller may: the lock must outlive it.
    const said = ((got) => (typeof got === 'string' ? got : 'cannot' in got ? 'cannot' : 'held'))(tryLock(${JSON.stringify(file)}));
    globalThis.gc();
    const kept = said !== 'held' || lockHolder(${JSON.stringify(file)}) === process.pid;
    console.log(said + (kept ? '' : ' (then lost)') + (late > 0 ? ' (late ' + late + ' ms)' : ''));
    process.stdin.resume();
    process.stdin.on('end', () => process.exit(0));
  `;
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', code], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const answer = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.on('error', reject);
    child.on('exit', () => resolve(out.trim()));
  });
  const ended = new Promise((resolve) => child.on('exit', resolve));
  return { answer, end: () => (child.stdin.end(), ended) };
}

test('four processes asking for one folder’s lock at the same instant, five times: exactly one holds it each time, and keeps it when it drops the handle', async () => {
  for (let round = 0; round < 5; round++) {
    const file = join(work, `round-${round}.lock`);
    // Far enough ahead for all four to have started and loaded SQLite (one that did not is said late).
    const at = Date.now() + 2500;
    const askers = [0, 1, 2, 3].map(() => asker(file, at));
    try {
      // Each holds what it got until all four have answered.
      const answers = await Promise.all(askers.map((a) => a.answer));
      expect(
        answers.filter((a) => a === 'held'),
        `round ${round}: ${answers.join(', ')}`,
      ).toHaveLength(1);
      expect(
        answers.filter((a) => a.startsWith(BUSY)),
        `round ${round}: ${answers.join(', ')}`,
      ).toHaveLength(3);
    } finally {
      await Promise.all(askers.map((a) => a.end()));
    }
  }
}, 120_000);

test('a lock held here is busy to another asker, names its holder, and is free once let go', () => {
  const file = join(work, 'held.lock');
  const held = tryLock(file);
  if (typeof held === 'string' || 'cannot' in held) throw new Error(`not held: ${JSON.stringify(held)}`);
  try {
    expect(tryLock(file)).toBe(BUSY);
    if (process.platform === 'linux') expect(lockHolder(file)).toBe(process.pid);
  } finally {
    held.release();
  }
  const again = tryLock(file);
  expect(again).not.toBe(BUSY);
  if (typeof again !== 'string' && !('cannot' in again)) again.release();
  expect(lockHolder(file)).toBeUndefined();
});
