import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, test } from 'vitest';
import { flushLog, openLog, requestLogger } from './log';

test('the request line is one JSON line in the shape of pino’s own (level, time, pid, fields), the path and the key label escaped', () => {
  const lines: string[] = [];
  const logger = pino(
    { level: 'info', base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime },
    { write: (s: string) => lines.push(s) },
  );
  const logRequest = requestLogger(logger)!;
  logRequest({ method: 'GET', path: '/nps/chains', status: 200, ms: 0.4 });
  logRequest({ method: 'POST', path: '/nps/"odd"\\path\u0001', status: 400, ms: 12, key: 'Desk “Ledger” \\ 2' });
  logger.info({ event: 'import', added: 3 });

  expect(lines.every((l) => l.endsWith('\n') && !l.slice(0, -1).includes('\n'))).toBe(true);
  const [plain, odd, pinoOwn] = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(plain).toEqual({
    level: 30,
    time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    pid: process.pid,
    method: 'GET',
    path: '/nps/chains',
    status: 200,
    ms: 0.4,
  });
  expect(odd).toMatchObject({ method: 'POST', path: '/nps/"odd"\\path\u0001', status: 400, ms: 12, key: 'Desk “Ledger” \\ 2' });
  // The same keys, in the same order, as a line pino writes itself.
  expect(Object.keys(pinoOwn!).slice(0, 3)).toEqual(Object.keys(plain!).slice(0, 3));
  expect(Math.abs(Date.parse(plain!.time as string) - Date.now())).toBeLessThan(5_000);
});

test('a log that keeps no info lines gets no request writer', () => {
  expect(requestLogger(pino({ level: 'warn' }, { write: () => undefined }))).toBeUndefined();
  expect(requestLogger(pino({ level: 'silent' }))).toBeUndefined();
});

describe('the data folder’s log', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const fresh = () => {
    const d = mkdtempSync(join(tmpdir(), 'nps-log-'));
    dirs.push(d);
    return d;
  };
  const linesOf = (dataDir: string) => {
    const dir = join(dataDir, 'logs');
    return readdirSync(dir)
      .filter((f) => f.endsWith('.log'))
      .sort((a, b) => Number(a.split('.')[1]) - Number(b.split('.')[1]))
      .flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  };

  test('holds every line written before flushLog returns, in order, across a roll to the next file', async () => {
    const dataDir = fresh();
    const logger = await openLog(dataDir, 'info');
    const logRequest = requestLogger(logger)!;
    // Past the 10 MB roll: lines of about 520 bytes, a few each turn of the event loop as under
    // load, until the log has rolled to its next file (at most 60,000), then 3,000 more.
    const padding = 'x'.repeat(400);
    const files = () => readdirSync(join(dataDir, 'logs')).filter((f) => f.endsWith('.log')).length;
    let total = 0;
    let end = 60_000;
    while (total < end) {
      for (let k = 0; k < 7 && total < end; k += 1, total += 1)
        logRequest({ method: 'GET', path: `/nps/tokens/${total}/${padding}`, status: 200, ms: 0.3 });
      if (total % 700 === 0) logger.info({ event: 'mark', at: total });
      if (end === 60_000 && total % 70 === 0 && files() > 1) end = total + 3_000;
      await new Promise((r) => setImmediate(r));
    }
    expect(end).toBeLessThan(60_000);
    await flushLog(logger);
    const lines = linesOf(dataDir);
    const paths = lines.filter((l) => l.path !== undefined).map((l) => Number(String(l.path).split('/')[3]));
    expect(paths.length).toBe(total);
    expect(paths.every((n, i) => n === i)).toBe(true);
    // pino's own lines come in their place among the request lines.
    const marks = lines.flatMap((l, i) => (l.event === 'mark' ? [{ i, at: Number(l.at) }] : []));
    expect(marks.length).toBeGreaterThan(30);
    for (const { i, at } of marks) expect(lines[i - 1]!.path).toContain(`/nps/tokens/${at - 1}/`);
  }, 60_000);

  test('an error is in the file at once, after the lines that came before it', async () => {
    const dataDir = fresh();
    const logger = await openLog(dataDir, 'info');
    requestLogger(logger)!({ method: 'POST', path: '/nps/bill/verify/txs', status: 500, ms: 3 });
    logger.error({ event: 'failure', error: 'disk full' });
    // No flush: the error's write is on its way; bounded wait for it to land.
    let lines: Record<string, unknown>[] = [];
    for (let i = 0; i < 100 && lines.length < 2; i += 1) {
      await new Promise((r) => setTimeout(r, 20));
      lines = linesOf(dataDir);
    }
    expect(lines.map((l) => l.path ?? l.event)).toEqual(['/nps/bill/verify/txs', 'failure']);
    await flushLog(logger);
  });
});
