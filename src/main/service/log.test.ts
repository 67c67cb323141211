import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { flushLog, openLog } from './log';

/* The log's file: lines gathered in memory reach it on flushLog, and an error line at once. */

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function logLines(dataDir: string): Record<string, unknown>[] {
  const files = readdirSync(join(dataDir, 'logs')).filter((f) => f.endsWith('.log'));
  return files
    .flatMap((f) => readFileSync(join(dataDir, 'logs', f), 'utf8').split('\n'))
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const until = async (check: () => boolean, ms: number) => {
  for (const end = Date.now() + ms; Date.now() < end && !check();) await new Promise((r) => setTimeout(r, 20));
};

test('every line reaches the file in order, as pino writes it, once the log is flushed', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'nps-log-'));
  dirs.push(dataDir);
  const logger = await openLog(dataDir, 'info');
  for (let i = 0; i < 500; i++) logger.info({ method: 'GET', path: '/nps/chains', status: 200, ms: i / 10 });
  logger.debug({ event: 'below the level' });
  await flushLog(logger);
  const lines = logLines(dataDir);
  expect(lines).toHaveLength(500);
  expect(lines.map((l) => l.ms)).toEqual(Array.from({ length: 500 }, (_, i) => i / 10));
  expect(lines[0]).toMatchObject({ level: 30, pid: process.pid, method: 'GET', path: '/nps/chains', status: 200 });
  expect(String(lines[0]!.time)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

test('an error line is passed on at once, with the lines gathered before it; the others within a quarter second', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'nps-log-'));
  dirs.push(dataDir);
  const logger = await openLog(dataDir, 'info');
  logger.info({ event: 'before' });
  logger.error({ event: 'failed', error: 'disk full' });
  await until(() => logLines(dataDir).length === 2, 200);
  expect(logLines(dataDir).map((l) => [l.level, l.event])).toEqual([
    [30, 'before'],
    [50, 'failed'],
  ]);
  logger.info({ event: 'after' });
  await until(() => logLines(dataDir).length === 3, 2000);
  expect(logLines(dataDir).map((l) => l.event)).toEqual(['before', 'failed', 'after']);
  await flushLog(logger);
});
