import { parentPort } from 'node:worker_threads';
import { PageJudge, type PageAnswer, type PageRequest } from '../onchain/page';

/*
 * The chain thread: a check against the chains' nodes asks them about its records here (onchain/
 * page.ts), one page at a time: the requests, their waiting, the parsing of what the nodes answer
 * and the comparisons, off the service's thread, which only reads each page and writes its findings.
 * One thread a check, ended with it; it holds no store.
 */

export type ChainRequest = { id: number; page: PageRequest };
export type ChainReply = { id: number; answer: PageAnswer } | { id: number; error: string };

const port = parentPort!;
const judge = new PageJudge();

port.on('message', (m: ChainRequest) => {
  judge.judge(m.page).then(
    (answer) => port.postMessage({ id: m.id, answer } satisfies ChainReply),
    (err: unknown) => port.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) } satisfies ChainReply),
  );
});
