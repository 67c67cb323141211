import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contract, type HandlerName, type HandlerResult } from '../../shared/contract';
import type { ErrorCode } from '../../shared/errors';
import type { CallMeta } from '../service/context';
import { ServiceError } from '../service/errors';
import { DISCOVERY_FILE } from '../service/http/server';
import { LOCAL_TOKEN_FILE, LOCAL_TOKEN_HEADER, PROGRESS_MEDIA_TYPE } from '../service/http/local-door';

/*
 * One data folder, one writer: a command finds out whether a service already runs on the folder
 * (api.json names its address and process; local.token lets this user call in), and then calls
 * that service's handler map instead of opening the store itself.
 */

export interface RunningService {
  /** e.g. http://127.0.0.1:8730 */
  origin: string;
  pid: number;
  token: string;
}

/** Whether a process of this id exists (signal 0 checks without sending anything). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The service api.json names, when its process still runs; undefined when none does (or the files are left from a crash). */
export function runningService(dataDir: string): RunningService | undefined {
  let discovery: { base_url?: unknown; pid?: unknown };
  let token: string;
  try {
    discovery = JSON.parse(readFileSync(join(dataDir, DISCOVERY_FILE), 'utf8')) as typeof discovery;
    token = readFileSync(join(dataDir, LOCAL_TOKEN_FILE), 'utf8').trim();
  } catch {
    return undefined;
  }
  const { base_url: base, pid } = discovery;
  if (typeof base !== 'string' || typeof pid !== 'number' || pid === process.pid || !alive(pid) || token === '') return undefined;
  return { origin: base.replace(/\/nps\/?$/, ''), pid, token };
}

/**
 * One line saying that a service already runs on the folder, and where, when one does: a second
 * service (a `serve`, or the desktop app) on it would fight the first over the store.
 */
export function otherServiceOn(dataDir: string): string | undefined {
  const other = runningService(dataDir);
  return (
    other &&
    `a service already runs on ${dataDir}: ${other.origin}/nps (process ${other.pid}); stop it first, or use --data-dir for another folder`
  );
}

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
        throw new Error(
          `the service running on this data folder (process ${service.pid}, ${service.origin}) did not answer: ${(err as Error).message}; stop it, or wait until it answers`,
          { cause: err },
        );
      }
      const envelope =
        meta.onProgress && (res.headers.get('content-type') ?? '').startsWith(PROGRESS_MEDIA_TYPE)
          ? await readProgress(res, meta.onProgress)
          : ((await res.json()) as Envelope);
      if (envelope.status !== 0) throw new ServiceError(envelope.status as ErrorCode, envelope.msg);
      return contract[name].output.parse(envelope.data) as HandlerResult<typeof name>;
    },
  };
}
