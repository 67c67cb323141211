import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { isMainThread } from 'node:worker_threads';

/*
 * Preloaded into the service by bench/load.ts (`node --import ./bench/loop-probe.mjs out/main/cli.js serve ...`),
 * never by the product: every 200 ms it appends to NPS_BENCH_LOOP_FILE one JSON line with how late the
 * service's event loop ran over that stretch (perf_hooks.monitorEventLoopDelay, 5 ms resolution): its
 * max and p99 in ms, the wall clock, and the connections the server took (counted on net.Server's
 * 'connection' event, so the bench can tell a connection waiting in the listen queue from one accepted).
 */

const file = process.env.NPS_BENCH_LOOP_FILE;
// The service's worker threads inherit the preload: only the service's own thread is probed.
if (file && isMainThread) {
  const { Server } = await import('node:net');
  let accepted = 0;
  const emit = Server.prototype.emit;
  Server.prototype.emit = function (event, ...args) {
    if (event === 'connection') accepted++;
    return emit.call(this, event, ...args);
  };
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  setInterval(() => {
    const line = { at: Date.now(), max: delay.max / 1e6, p99: delay.percentile(99) / 1e6, accepted };
    delay.reset();
    appendFileSync(file, JSON.stringify(line) + '\n');
  }, 200).unref();
}
