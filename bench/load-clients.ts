import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadJob, LoadResult } from './load-client';

/*
 * The parent's side of a load client process (bench/load-client.ts): bench/load.ts and the
 * reliability suite's burst of verify clients start them through here.
 */

/** One client process (`execArgv` besides tsx: a profiler's flags, say): sent its job, it answers 'ready'; sent 'go', it runs and answers its result. */
export function startClients(
  execArgv: string[],
  job: LoadJob,
): { child: ChildProcess; ready: Promise<void>; result: Promise<LoadResult>; closed: Promise<void> } {
  const child = fork(fileURLToPath(new URL('./load-client.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx', ...execArgv],
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let onReady: () => void = () => {};
  let onResult: (r: LoadResult) => void = () => {};
  let onFail: (e: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    onReady = resolve;
    onFail = reject;
  });
  const result = new Promise<LoadResult>((resolve, reject) => {
    onResult = resolve;
    const previous = onFail;
    onFail = (e) => {
      previous(e);
      reject(e);
    };
  });
  // Whoever awaits only one of the two: the other's rejection is not left unhandled.
  ready.catch(() => {});
  result.catch(() => {});
  let settled = false;
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.on('message', (m: { type: 'ready' } | { type: 'result'; result: LoadResult } | { type: 'failed'; message: string }) => {
    if (m.type === 'ready') onReady();
    else if (m.type === 'result') {
      settled = true;
      onResult(m.result);
    } else {
      settled = true;
      onFail(new Error(`a client process failed: ${m.message}`));
    }
  });
  child.on('error', (e) => onFail(e));
  child.on('close', (code, signal) => {
    if (!settled) onFail(new Error(`a client process ended (${signal ?? `code ${code}`}) without a result`));
  });
  child.send({ type: 'job', job });
  return { child, ready, result, closed };
}
