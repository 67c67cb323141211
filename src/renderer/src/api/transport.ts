import type { Envelope, ExplorerTarget, Progress } from '../../../shared/bridge';

/** How calls leave the window: Electron's preload bridge, or the browser-mode door with this browser's session. */
export interface Transport {
  kind: 'electron' | 'browser';
  call(name: string, args: unknown, onProgress?: (p: Progress) => void): Promise<Envelope>;
  openExplorer(target: ExplorerTarget, url: string): Promise<void>;
  /** A dropped or picked file's path on disk, when the service can read it there. */
  pathForFile(file: File): string;
}

/** A failure of the transport itself (service gone, answer unreadable): not an envelope from the service. */
const TRANSPORT_FAILURE = -1;

const unreachable = (err: unknown): Envelope => ({
  status: TRANSPORT_FAILURE,
  data: null,
  msg: `The service did not answer (${err instanceof Error ? err.message : String(err)}). Is it still running?`,
});

function electronTransport(bridge: NonNullable<Window['nps']>): Transport {
  return {
    kind: 'electron',
    call: (name, args, onProgress) => bridge.call(name, args, onProgress).catch(unreachable),
    openExplorer: async (target) => {
      const answer = await bridge.openExplorer(target);
      if (answer.status !== 0) throw new Error(answer.msg);
    },
    pathForFile: (file) => bridge.pathForFile(file),
  };
}

const PROGRESS_MEDIA_TYPE = 'application/x-ndjson';

async function readProgressStream(res: Response, onProgress: (p: Progress) => void): Promise<Envelope> {
  if (!res.body) throw new Error('empty answer');
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let last: Envelope | undefined;
  const take = (line: string) => {
    if (!line.trim()) return;
    const value = JSON.parse(line) as { progress?: Progress } & Envelope;
    if (value.progress) onProgress(value.progress);
    else last = value;
  };
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      take(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
    }
  }
  take(buffer + decoder.decode());
  if (!last) throw new Error('the answer ended before the result');
  return last;
}

/**
 * The browser-mode session: the link `serve --ui` printed carries a one-time code in its fragment,
 * traded here (once) for an HttpOnly cookie the door checks on every call; the code then leaves the
 * address bar. Without a code (a reload), the cookie from the first trade is still there.
 */
async function openSession(): Promise<void> {
  const code = /(?:^#|&)code=([\w-]+)/.exec(window.location.hash)?.[1];
  if (!code) return;
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
  await fetch('/app/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
}

function browserTransport(): Transport {
  const session = openSession().catch(() => undefined);
  return {
    kind: 'browser',
    call: async (name, args, onProgress) => {
      try {
        await session;
        const res = await fetch(`/app/rpc/${encodeURIComponent(name)}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: onProgress ? PROGRESS_MEDIA_TYPE : 'application/json',
          },
          body: JSON.stringify(args ?? {}),
        });
        if (onProgress && res.ok && (res.headers.get('content-type') ?? '').startsWith(PROGRESS_MEDIA_TYPE)) {
          return await readProgressStream(res, onProgress);
        }
        return (await res.json()) as Envelope;
      } catch (err) {
        return unreachable(err);
      }
    },
    openExplorer: async (_target, url) => {
      window.open(url, '_blank', 'noopener,noreferrer');
    },
    pathForFile: () => '',
  };
}

function pickTransport(): Transport {
  if (window.nps) return electronTransport(window.nps);
  return browserTransport();
}

export const transport: Transport = pickTransport();
