import pino from 'pino';
import { expect, test } from 'vitest';
import { requestLogger } from './log';

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
