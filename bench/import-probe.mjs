import { readFileSync, writeSync } from 'node:fs';

/*
 * Loaded into the `nps import` that bench:import starts (node --import): the process's peak
 * memory, written on stderr as it exits, as one line `import probe: {"sampledPeak":…,"vmHwm":…}`.
 * VmHWM is the kernel's high-water mark of the resident set (Linux); the RSS sampled every 100 ms
 * stands in where /proc has none. Nothing else of the command changes.
 */

const vmHwmBytes = () => {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
};

let sampledPeak = process.memoryUsage.rss();
// process.memoryUsage.rss(), not process.memoryUsage(): the whole report (the V8 heap's statistics
// too) cost the import it measured 0.6 s of its main thread's time.
setInterval(() => {
  sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
}, 100).unref();

process.on('exit', () => {
  sampledPeak = Math.max(sampledPeak, process.memoryUsage.rss());
  writeSync(2, `import probe: ${JSON.stringify({ sampledPeak, vmHwm: vmHwmBytes() })}\n`);
});
