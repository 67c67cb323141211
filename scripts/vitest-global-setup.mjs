// Before the unit tests: the build the service's worker threads and the CLI's tests run (scripts/build.mjs), when stale.
import { ensureBuilt } from './build.mjs';

export default function setup() {
  ensureBuilt();
}
