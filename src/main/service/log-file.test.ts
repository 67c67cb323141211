import * as fs from 'node:fs';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { RollingFile, type LogFs } from './log-file';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'nps-log-file-'));
  dirs.push(d);
  return join(d, 'logs');
};

const files = (dir: string) =>
  readdirSync(dir)
    .filter((f) => /^nps\.\d+\.log$/.test(f))
    .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]));
const linesOf = (dir: string) => files(dir).flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean));
const flushed = (file: RollingFile) => new Promise<void>((resolve) => file.flush(resolve));
const line = (i: number) =>
  `{"level":30,"time":"2026-01-01T00:00:00.000Z","pid":1,"method":"GET","path":"/nps/chains/${i}","status":429}\n`;

/** node:fs, but a write fails with ENOSPC while `full` is set (after writing `partial` bytes of it). */
function fillingDisk() {
  const state = { full: false, partial: 0, failedWrites: 0 };
  const disk: LogFs = {
    openSync: fs.openSync,
    closeSync: fs.closeSync,
    fstatSync: fs.fstatSync,
    fchmodSync: fs.fchmodSync,
    readdirSync: (d) => fs.readdirSync(d),
    unlinkSync: fs.unlinkSync,
    mkdirSync: fs.mkdirSync,
    write: (fd, buffer, offset, length, cb) => {
      if (!state.full) return fs.write(fd, buffer, offset, length, null, cb);
      state.failedWrites++;
      const enospc = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      if (state.partial > 0 && length > state.partial) {
        const part = state.partial;
        state.partial = 0;
        // Some bytes land, the rest does not: the next write the writer tries is the failing one.
        return fs.write(fd, buffer, offset, part, null, (err, n) => (err ? cb(err, 0) : cb(null, n)));
      }
      setImmediate(() => cb(enospc, 0));
    },
  };
  return { disk, state };
}

describe('the log’s rolling files', () => {
  test('a flood never makes a file larger than its limit, and only the kept files stay', async () => {
    const dir = fresh();
    const limit = 64 * 1024;
    const file = new RollingFile({ dir, limitBytes: limit, keep: 4, maxPendingBytes: 1024 * 1024 });
    // 60,000 lines (6.5 MB, a hundred files' worth) as fast as they come: a write is always in
    // flight, so a roll that waited for the stream to drain would never happen.
    for (let i = 0; i < 60_000; i++) {
      file.write(line(i));
      if (i % 2000 === 0) await new Promise((r) => setImmediate(r));
    }
    await flushed(file);
    file.write(line(60_000));
    await flushed(file);
    const names = files(dir);
    expect(names.length).toBe(5);
    const numbers = names.map((f) => Number(f.split('.')[1]));
    expect(numbers).toEqual(Array.from({ length: 5 }, (_, i) => numbers[0]! + i));
    expect(numbers[0]).toBeGreaterThan(5);
    for (const f of names) expect(statSync(join(dir, f)).size).toBeLessThanOrEqual(limit);
    // Every line in the files is whole, in the order written, and the newest is the last written.
    const lines = linesOf(dir).map((l) => JSON.parse(l) as { path?: string; event?: string; lines?: number });
    const order = lines.flatMap((l) => (l.path ? [Number(l.path.split('/')[3])] : []));
    expect(order.every((n, i) => i === 0 || n > order[i - 1]!)).toBe(true);
    expect(order.at(-1)).toBe(60_000);
    // Lines that came faster than the disk took them, past the bound, were dropped and counted
    // (the lines saying so may be in files removed since).
    const reported = lines.reduce((n, l) => n + (l.event === 'log-lines-lost' ? l.lines! : 0), 0);
    expect(reported).toBeLessThanOrEqual(file.droppedLines);
    await new Promise<void>((resolve) => file.end(resolve));
  }, 30_000);

  test('continues the newest file after a restart, and never writes a file past its limit', async () => {
    const dir = fresh();
    const first = new RollingFile({ dir, limitBytes: 4096, keep: 4, maxPendingBytes: 1 << 20 });
    first.write(line(1));
    await new Promise<void>((resolve) => first.end(resolve));
    const again = new RollingFile({ dir, limitBytes: 4096, keep: 4, maxPendingBytes: 1 << 20 });
    again.write(line(2));
    await flushed(again);
    expect(files(dir)).toEqual(['nps.1.log']);
    again.write(line(3).repeat(40));
    await flushed(again);
    expect(files(dir)).toEqual(['nps.1.log', 'nps.2.log']);
    expect(statSync(join(dir, 'nps.1.log')).size).toBe(line(1).length * 2);
    await new Promise<void>((resolve) => again.end(resolve));
  });

  test('on a full disk lines are dropped and counted, memory stays flat, and one line says how many once writing works again', async () => {
    const dir = fresh();
    const { disk, state } = fillingDisk();
    const bound = 256 * 1024;
    const file = new RollingFile({ dir, limitBytes: 10 * 1024 * 1024, keep: 4, maxPendingBytes: bound, retryMs: 50, fs: disk });
    file.write(line(0));
    await flushed(file);
    state.full = true;
    state.partial = 40;
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    let maxPending = 0;
    // 100,000 lines (10 MB) while nothing can be written.
    for (let i = 1; i <= 100_000; i++) {
      file.write(line(i));
      maxPending = Math.max(maxPending, file.pendingBytes);
      if (i % 1000 === 0) await new Promise((r) => setTimeout(r, 1));
    }
    await flushed(file);
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    expect(maxPending).toBeLessThanOrEqual(bound);
    // Ten megabytes of lines came; a few megabytes at most may be garbage not yet collected.
    expect(heapGrowth).toBeLessThan(8 * 1024 * 1024);
    expect(state.failedWrites).toBeGreaterThan(0);
    // Far fewer writes tried than batches: after a failure the disk rests.
    expect(state.failedWrites).toBeLessThan(1000);
    expect(file.droppedLines).toBe(100_000);

    state.full = false;
    await new Promise((r) => setTimeout(r, 60));
    file.write(line(100_001));
    file.write(line(100_002));
    await flushed(file);
    const text = readFileSync(join(dir, 'nps.1.log'), 'utf8');
    const lines = text.split('\n').filter(Boolean);
    // The first line, the part of a line the disk took before it filled, then the count, then the new lines.
    expect(lines[0]).toBe(line(0).trim());
    expect(lines[1]).toBe(line(1).slice(0, 40));
    expect(JSON.parse(lines[2]!)).toMatchObject({
      level: 40,
      event: 'log-lines-lost',
      lines: 100_000,
      cause: 'ENOSPC: no space left on device, write',
      msg: '100000 log lines were not written (ENOSPC: no space left on device, write); the log goes on from here',
    });
    expect(lines.slice(3)).toEqual([line(100_001).trim(), line(100_002).trim()]);
    // Said once: the next lines come without it.
    file.write(line(100_003));
    await flushed(file);
    expect(readFileSync(join(dir, 'nps.1.log'), 'utf8').split('log-lines-lost').length).toBe(2);
    await new Promise<void>((resolve) => file.end(resolve));
  }, 30_000);

  test('the files are the user’s alone (0600), an older wider file tightened', async () => {
    const dir = fresh();
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(join(dir, 'nps.3.log'), line(0), { mode: 0o644 });
    fs.chmodSync(join(dir, 'nps.3.log'), 0o644);
    const file = new RollingFile({ dir, limitBytes: 1024, keep: 4, maxPendingBytes: 1 << 20 });
    file.write(line(1).repeat(12));
    await flushed(file);
    expect(files(dir)).toEqual(['nps.3.log', 'nps.4.log']);
    for (const f of files(dir)) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600);
    await new Promise<void>((resolve) => file.end(resolve));
  });
});
