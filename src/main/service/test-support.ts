import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openService, type Service, type ServiceOptions } from './index';

/** A service over a fresh SQLite file in its own temporary data directory. */
export function tempService(opts: Partial<ServiceOptions> = {}): Service & { dataDir: string; dispose(): void } {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'nps-test-'));
  const service = openService({ ...opts, dataDir });
  let closed = false;
  return {
    ...service,
    dataDir,
    close: () => {
      if (!closed) service.close();
      closed = true;
    },
    dispose: () => {
      if (!closed) service.close();
      closed = true;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
