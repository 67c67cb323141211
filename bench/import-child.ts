import { readFileSync } from 'node:fs';
import { openService } from '../src/main/service/index';

/*
 * One import in a process of its own, so its peak memory is the import's alone. Prints one JSON
 * line: what the import did (rows, added, updated, unchanged, rejected), milliseconds (in all, and
 * reading and checking), and peak RSS both as sampled and as the kernel's high-water mark.
 * bench/import.ts starts it with the flags `nps import` runs with (scripts/launch-flags.mjs);
 * `--cpu-prof` on the node command line profiles it.
 */

const [file, dataDir] = process.argv.slice(2);
if (!file || !dataDir) throw new Error('usage: import-child FILE DATA_DIR');

const vmHwmBytes = (): number | null => {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
};

const service = openService({ dataDir });
// process.memoryUsage.rss(), not process.memoryUsage(): the whole report (the V8 heap's statistics
// too) cost the import it measured 0.6 s of its main thread's time.
let sampledPeak = process.memoryUsage.rss();
const timer = setInterval(() => {
  sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
}, 100);
const rssBefore = process.memoryUsage.rss();
const t0 = performance.now();
// The last progress call (every byte read) ends the reading and checking; the write follows.
let readMs = 0;
const report = await service.invoke(
  'ledger-import',
  { source: { path: file } },
  {
    actor: 'cli',
    // No RSS sample here: a progress call comes every 64 KiB, and the samples cost the import's
    // reading thread 0.6 s of 12 a million rows (--cpu-prof); the timer's (every 100 ms: each sample
    // costs a few tenths of a millisecond) and VmHWM suffice.
    onProgress: (p) => {
      if (p.bytes === p.totalBytes && readMs === 0) readMs = performance.now() - t0;
    },
  },
);
const ms = performance.now() - t0;
clearInterval(timer);
sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
service.close();
process.stdout.write(
  JSON.stringify({
    rows: report.rows_total,
    added: report.added,
    updated: report.updated,
    unchanged: report.unchanged,
    rejected: report.rejected,
    ms,
    readMs,
    rssBefore,
    sampledPeak,
    vmHwm: vmHwmBytes(),
  }) + '\n',
);
