import { contract, type HandlerName, type HandlerResult } from '../../shared/contract';
import type { ErrorCode } from '../../shared/errors';
import type { CallMeta } from '../service/context';
import { LOCAL_TOKEN_HEADER, type RunningService } from '../service/data-folder';
import { ServiceError } from '../service/errors';
import { PROGRESS_MEDIA_TYPE } from '../service/http/local-door';
import { UsageError } from './errors';

/*
 * One data folder, one writer: while a service runs on the folder, a command calls that service's
 * handler map through its command-line door (/local/rpc) instead of opening the store itself
 * (common.ts, withService; data-folder.ts finds the service).
 */

/** The calls a command makes: the same whether the store is opened here or a running service answers. */
export interface Invoker {
  invoke<N extends HandlerName>(name: N, input: unknown, meta: Pick<CallMeta, 'actor' | 'onProgress'>): Promise<HandlerResult<N>>;
}

type Envelope = { status: number; data: unknown; msg: string };

/** Read newline-delimited progress lines, then the envelope. */
async function readProgress(res: Response, onProgress: NonNullable<CallMeta['onProgress']>): Promise<Envelope> {
  const decoder = new TextDecoder();
  let buffer = '';
  let last: Envelope | undefined;
  const take = (line: string) => {
    if (!line.trim()) return;
    const value = JSON.parse(line) as { progress?: Parameters<typeof onProgress>[0] } & Envelope;
    if (value.progress) onProgress(value.progress);
    else last = value;
  };
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      take(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
  }
  take(buffer + decoder.decode());
  if (!last) throw new Error('the running service ended its answer before the result');
  return last;
}

/** Calls to the service running on the folder, through its command-line door; a refusal throws as it would here. */
export function remoteInvoker(service: RunningService): Invoker {
  const where = `the service running on this data folder (process ${service.pid}, ${service.origin})`;
  return {
    async invoke(name, input, meta) {
      let res: Response;
      try {
        res = await fetch(`${service.origin}/local/rpc/${encodeURIComponent(name)}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: meta.onProgress ? PROGRESS_MEDIA_TYPE : 'application/json',
            [LOCAL_TOKEN_HEADER]: service.token,
          },
          body: JSON.stringify(input ?? {}),
        });
      } catch (err) {
        throw new UsageError(`${where} did not answer: ${reasonOf(err)}; stop it, or wait until it answers`);
      }
      let envelope: Envelope;
      try {
        envelope =
          meta.onProgress && (res.headers.get('content-type') ?? '').startsWith(PROGRESS_MEDIA_TYPE)
            ? await readProgress(res, meta.onProgress)
            : ((await res.json()) as Envelope);
      } catch (err) {
        // The service stopped (or died) while it answered: what it did is in its store as far as it got
        // (an import lands whole or not at all), and its log says why.
        throw new UsageError(
          `${where} stopped before it finished answering ${name} (${reasonOf(err)}); see its log, then run the command again`,
        );
      }
      if (envelope.status !== 0) throw new ServiceError(envelope.status as ErrorCode, envelope.msg);
      return contract[name].output.parse(envelope.data) as HandlerResult<typeof name>;
    },
  };
}

/** A failed fetch's own reason (undici hides it in its cause: "fetch failed" says nothing). */
function reasonOf(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  return e.cause?.code ?? e.cause?.message ?? e.message;
}
