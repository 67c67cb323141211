import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { openFloor, planFloor } from './verify-floor-lib';
import { copyStore, setUpVerify } from './verify-setup';

/*
 * npm run bench:verify-floor [-- --rows 1000000 --requests 100 --items 1000 --warmup 20 --seed 1 --cache DIR --keep]
 * The verification floor alone (bench/verify-floor-lib.ts says what it is): the same store and the
 * same requests as bench:verify (bench/verify-setup.ts), each request's lookups, reads and writes
 * done directly through better-sqlite3. Prints the CPU time a request. bench:verify measures this
 * floor too, in the same run as the service, and prints the ratio.
 */

const { values } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '100' },
    items: { type: 'string', default: '1000' },
    warmup: { type: 'string', default: '20' },
    seed: { type: 'string', default: '1' },
    cache: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const requests = Number(values.requests);
const dir = mkdtempSync(join(tmpdir(), 'nps-bench-verify-floor-'));
try {
  const setup = await setUpVerify(dir, {
    rows: Number(values.rows),
    requests,
    items: Number(values.items),
    warmup: Number(values.warmup),
    seed: Number(values.seed),
    cache: values.cache,
  });
  const plans = planFloor(setup.store, [...setup.warmupBodies, ...setup.bodies], setup.apiKey, Date.now());
  const floor = openFloor(copyStore(setup, join(dir, 'floor')), setup.apiKey);
  // The warm-up first, not counted (V8 compiles; the first reads of the mapped file fault its pages in).
  for (const plan of plans.slice(0, setup.warmupBodies.length)) floor.run(plan);
  const recordsBefore = floor.records;
  let cpuMs = 0;
  const t0 = performance.now();
  for (const plan of plans.slice(setup.warmupBodies.length)) cpuMs += floor.run(plan);
  const wallMs = performance.now() - t0;
  const records = floor.records - recordsBefore;
  floor.close();
  console.log(
    `floor: ${requests} requests of ${values.items} claims, ${records.toLocaleString('en-US')} records read: CPU ${(cpuMs / requests).toFixed(1)} ms a request (wall ${(wallMs / requests).toFixed(1)} ms); ` +
      `${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
  console.log(`floor CPU per request: ${(cpuMs / requests).toFixed(2)} ms`);
} finally {
  if (values.keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
