import type { LedgerRecord } from '../../../shared/ledger';
import { judge, type Judged, type TokenView } from './compare';
import { NodeError, type ChainReader } from './reader';
import { readerAt } from './readers';

/*
 * A page of a check's records judged against their chains' nodes: the heads read fresh, each record's
 * transaction asked (a bounded number at once), each judged (compare.ts). All of it waits on the
 * nodes and parses what they answer, so it runs on a thread of its own (engine/chain-worker.ts): the
 * service's thread only reads the page and writes its findings. Everything a page needs comes in
 * its request (the catalogue's chains and tokens, each chain's node or why there is none), so the
 * thread holds no store.
 */

export interface PageRequest {
  records: LedgerRecord[];
  /** Per chain of the page: its node's family and URL, or why its records cannot be read. */
  nodes: Record<string, { family: string; url: string } | { reason: string }>;
  chains: Record<string, { threshold: number; native_token_id: string }>;
  tokens: Record<string, TokenView>;
  concurrency: number;
}

export interface PageAnswer {
  judged: Judged[];
  /** Requests asked again after a rate limit or a node failure, since the judge began (every page so far). */
  retries: number;
}

const unchecked = (reason: string): Judged => ({
  outcome: 'unchecked',
  fields: [],
  reason,
  chain: {},
  confirmations: null,
  block_number: null,
});

/** How many of `items` run at once. */
async function pool<T, R>(items: readonly T[], limit: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await run(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** Judges the pages of one check: its readers (one per chain's node) live from page to page. */
export class PageJudge {
  private readonly readers = new Map<string, ChainReader>();
  /** A node that did not answer even its head: its chain's records are unchecked for the rest of the check. */
  private readonly down = new Map<string, string>();

  private reader(chainId: string, node: PageRequest['nodes'][string]): ChainReader | string {
    if ('reason' in node) return node.reason;
    const down = this.down.get(chainId);
    if (down !== undefined) return down;
    const key = `${chainId}\n${node.url}`;
    let r = this.readers.get(key);
    if (!r) this.readers.set(key, (r = readerAt(node.family, node.url)));
    return r;
  }

  get retries(): number {
    return [...this.readers.values()].reduce((n, r) => n + r.retries, 0);
  }

  async judge(req: PageRequest): Promise<PageAnswer> {
    const readers = new Map<string, ChainReader | string>();
    const heads = new Map<string, bigint>();
    for (const chainId of new Set(req.records.map((r) => r.chain_id))) {
      const node = req.nodes[chainId] ?? { reason: `${chainId} is not in the catalogue` };
      const reader = this.reader(chainId, node);
      readers.set(chainId, reader);
      if (typeof reader === 'string') continue;
      try {
        // Read fresh for each page: a confirmation count is of the head as it is now.
        heads.set(chainId, await reader.head());
      } catch (err) {
        if (!(err instanceof NodeError)) throw err;
        // Asking again record by record would take minutes: the chain's records are unchecked for the rest of the check.
        const reason = `${chainId}'s node: ${err.message}`;
        this.down.set(chainId, reason);
        readers.set(chainId, reason);
      }
    }
    const judged = await pool(req.records, req.concurrency, async (rec) => {
      const reader = readers.get(rec.chain_id)!;
      if (typeof reader === 'string') return unchecked(reader);
      const chain = req.chains[rec.chain_id];
      const token = req.tokens[rec.token_id];
      const native = chain && req.tokens[chain.native_token_id];
      if (!chain || !token || !native) return unchecked(`${rec.token_id} on ${rec.chain_id} is no longer in the catalogue`);
      const internal = token.contract === '' && rec.movement >= 1 && rec.movement < 1_000_000;
      try {
        const facts = await reader.transaction(rec.hash, { internal });
        return judge(rec, facts, {
          family: reader.family,
          chainId: rec.chain_id,
          token,
          native,
          threshold: chain.threshold,
          head: heads.get(rec.chain_id)!,
          address: reader.address,
        });
      } catch (err) {
        if (err instanceof NodeError) return unchecked(err.message);
        throw err;
      }
    });
    return { judged, retries: this.retries };
  }
}
