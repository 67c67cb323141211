import { Worker } from 'node:worker_threads';
import { PageJudge, type PageAnswer, type PageRequest } from '../onchain/page';
import type { ChainReply, ChainRequest } from './chain-worker';
import { workerModule } from './threads';

/*
 * Where a check against the chains' nodes judges its pages: on a thread of its own (chain-worker.ts)
 * for the check's life. Where the thread cannot start (its build missing), the pages are judged on
 * the service's thread instead, with the same findings.
 */

export interface ChainJudge {
  judge(page: PageRequest): Promise<PageAnswer>;
  close(): void;
}

export function chainJudge(): ChainJudge {
  let worker: Worker;
  try {
    worker = new Worker(workerModule('chain-worker'));
  } catch {
    const local = new PageJudge();
    return { judge: (page) => local.judge(page), close: () => undefined };
  }
  // A check's thread never keeps the process alive by itself: the check's own promises do while it runs.
  worker.unref();
  let next = 0;
  const pending = new Map<number, { resolve: (a: PageAnswer) => void; reject: (e: Error) => void }>();
  const fail = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on('message', (m: ChainReply) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if ('error' in m) p?.reject(new Error(m.error));
    else p?.resolve(m.answer);
  });
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the chain thread ended (${code})`)));
  return {
    judge: (page) =>
      new Promise((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, page } satisfies ChainRequest);
      }),
    close: () => void worker.terminate(),
  };
}
