import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino, { type Logger } from 'pino';
import roll from 'pino-roll';
import { flushLog, openLog, requestLogger } from '../src/main/service/log';

/*
 * npm run bench:log-lines [-- --lines 200000 --per-turn 5 --rounds 3]
 * What a request's log line costs the service, in CPU per line (this process, the file writes of
 * libuv's threads included), for the way the data folder's log writes now (openLog: lines batched
 * in memory, handed to the file every 200 ms or 64 KiB) and the way it wrote before (pino-roll's
 * SonicBoom taking each line, minLength 4096). The lines are the service's own request line, a few
 * per turn of the event loop as requests come under load (--per-turn); the turns alone, without a
 * line, are measured too and taken off. Rounds alternate the two ways; the median is reported.
 * Every line is checked to be in the file afterwards.
 */

const { values } = parseArgs({
  options: {
    lines: { type: 'string', default: '200000' },
    'per-turn': { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
  },
});
const N = Number(values.lines);
const PER = Number(values['per-turn']);
const ROUNDS = Number(values.rounds);
for (const [name, v] of [
  ['lines', N],
  ['per-turn', PER],
  ['rounds', ROUNDS],
] as const)
  if (!Number.isSafeInteger(v) || v < 1) throw new Error(`--${name}: must be a whole number above 0, got ${v}`);

/** CPU µs of `N` turns' worth of work, PER items a turn, each turn a setImmediate. */
async function cpuOfTurns(each: (() => void) | undefined): Promise<number> {
  const before = process.cpuUsage();
  let i = 0;
  await new Promise<void>((resolve) => {
    const turn = () => {
      for (let k = 0; k < PER && i < N; k++, i++) each?.();
      if (i < N) setImmediate(turn);
      else resolve();
    };
    turn();
  });
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

const linesIn = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .reduce((n, f) => n + readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean).length, 0);

async function before(dir: string): Promise<Logger> {
  const file = await roll({ file: join(dir, 'nps'), extension: '.log', size: '1g', mkdir: true, minLength: 4096 });
  return pino({ level: 'info', base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, file);
}

const ways = {
  now: (dir: string) => openLog(dir, 'info'),
  before,
  // The line built and dropped: what building it costs, without any file.
  dropped: async () => pino({ level: 'info', base: { pid: process.pid } }, { write: () => undefined }),
} as const;
type Way = keyof typeof ways;

const root = mkdtempSync(join(tmpdir(), 'nps-bench-log-'));
const results: Record<Way, number[]> = { now: [], before: [], dropped: [] };
console.log(
  `machine: ${cpus().length} CPUs (${cpus()[0]?.model}), load ${loadavg()[0]!.toFixed(2)}; node ${process.version}; ${new Date().toISOString()}`,
);
console.log(`command: npm run bench:log-lines -- --lines ${N} --per-turn ${PER} --rounds ${ROUNDS}`);
try {
  for (let r = 0; r < ROUNDS; r++) {
    const all: Way[] = ['now', 'before', 'dropped'];
    const order = all.map((_, i) => all[(i + r) % all.length]!);
    for (const way of order) {
      const dir = join(root, `${way}-${r}`);
      const logger = await ways[way](dir);
      const line = requestLogger(logger)!;
      const fields = { method: 'GET', path: '/nps/tokens', status: 200, ms: 0.4, key: 'desk' };
      const bare = await cpuOfTurns(undefined);
      const withLines = await cpuOfTurns(() => line(fields));
      await flushLog(logger);
      // Every line is in the file once flushLog returns; the way before could leave up to 4 KiB
      // unwritten (SonicBoom's flush answers on 'drain', which comes with less than minLength
      // still waiting), so for it the lines missing are counted, not refused.
      const found = way === 'dropped' ? N : linesIn(way === 'now' ? join(dir, 'logs') : dir);
      if (found !== N && way === 'now') throw new Error(`${way}: ${found} lines in the file after flushLog, ${N} written`);
      const us = (withLines - bare) / N;
      results[way].push(us);
      console.log(
        `  round ${r + 1} ${way}: ${us.toFixed(3)} µs CPU a line (${N} lines, ${PER} a turn)${found !== N ? `; ${N - found} lines not in the file when flushLog returned` : ''}`,
      );
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `median: now ${median(results.now).toFixed(3)} µs a line, before ${median(results.before).toFixed(3)} µs, the line built and dropped ${median(results.dropped).toFixed(3)} µs`,
  );
} finally {
  rmSync(root, { recursive: true, force: true });
}
