import type { Envelope, ExplorerTarget, Progress } from '../../../shared/bridge';
import { createParser } from 'eventsource-parser';
import { EVERYTHING_CHANGED } from '../../../shared/changes';

/** How calls leave the window: Electron's preload bridge, or the browser-mode door with this browser's session. */
export interface Transport {
  kind: 'electron' | 'browser';
  call(name: string, args: unknown, onProgress?: (p: Progress) => void): Promise<Envelope>;
  openExplorer(target: ExplorerTarget, url: string): Promise<void>;
  /** A dropped or picked file's path on disk, when the service can read it there. */
  pathForFile(file: File): string;
  /**
   * Hear others' changes as the service pushes them (unparsed); answers the way to stop. A stream
   * that broke comes back by itself and then hands on one `{topic: 'everything'}`.
   */
  follow(onChange: (change: unknown) => void): () => void;
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
    follow: (onChange) => bridge.onChange(onChange),
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

/** The header the page sends its session token in (the service's http/sessions.ts). */
const SESSION_HEADER = 'x-nps-session';
/** Where the tab keeps its token across a reload: its own sessionStorage, which no other origin (another local port) can read. */
const TOKEN_KEY = 'nps.session';

/** Why this window has no session (a link already used, from before a restart, a session ended), once known. */
let sessionProblem: Envelope | undefined;
const problemListeners = new Set<() => void>();

function lostSession(answer: Envelope): Envelope {
  if (!sessionProblem) {
    sessionProblem = answer;
    for (const listener of problemListeners) listener();
  }
  return answer;
}

/** The refusal that ended this window's session, if one did (browser mode). */
export const currentSessionProblem = (): Envelope | undefined => sessionProblem;

/** Be told when this window's session is refused; answers the function that stops telling. */
export function onSessionProblem(listener: () => void): () => void {
  problemListeners.add(listener);
  return () => problemListeners.delete(listener);
}

const storedToken = (): string | undefined => {
  try {
    return window.sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
};

/**
 * The browser-mode session (the service's http/sessions.ts): the link carries a one-time code in
 * its fragment, traded here (once) for an HttpOnly cookie and a token this tab keeps and sends with
 * every call; the code then leaves the address bar. A reload finds the token in the tab's
 * sessionStorage. The answer is read whole, so the page's network goes quiet once it has come.
 */
async function openSession(): Promise<string | undefined> {
  const code = /(?:^#|&)code=([\w-]+)/.exec(window.location.hash)?.[1];
  if (!code) return storedToken();
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
  const res = await fetch('/app/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  const answer = (await res.json()) as Envelope & { data: { token?: string } | null };
  if (answer.status !== 0 || typeof answer.data?.token !== 'string') {
    lostSession(answer);
    return undefined;
  }
  try {
    window.sessionStorage.setItem(TOKEN_KEY, answer.data.token);
  } catch {
    // Kept in memory only: a reload then needs a fresh link.
  }
  return answer.data.token;
}

/** The window goes (closed, or reloading): the service ends its session unless it calls again soon (a reload does). */
function sayLeaving(token: string | undefined): void {
  window.addEventListener('pagehide', (event) => {
    if (event.persisted || !token) return;
    void fetch('/app/session/leave', { method: 'POST', keepalive: true, headers: { [SESSION_HEADER]: token } }).catch(() => undefined);
  });
}

/** Waits before the stream is opened again after it broke: longer each time, up to the last. */
const RECONNECT_MS = [500, 1_000, 2_000, 5_000, 10_000];

/**
 * Browser mode's event stream, GET /app/events, read with fetch (an EventSource cannot send the
 * session's header). When it ends or breaks, it is opened again after a pause; once open again,
 * the window reloads everything, since changes may have gone by meanwhile.
 */
function followStream(token: Promise<string | undefined>, onChange: (change: unknown) => void): () => void {
  let stopped = false;
  let controller: AbortController | undefined;
  let timer: number | undefined;
  let failures = 0;
  let broke = false;
  const open = async () => {
    if (stopped || sessionProblem) return;
    controller = new AbortController();
    try {
      const t = await token;
      const res = await fetch('/app/events', {
        headers: { accept: 'text/event-stream', ...(t ? { [SESSION_HEADER]: t } : {}) },
        signal: controller.signal,
      });
      if (res.status === 401) {
        lostSession((await res.json()) as Envelope);
        return;
      }
      if (!res.ok || !res.body) throw new Error(`the event stream answered ${res.status}`);
      failures = 0;
      if (broke) onChange(EVERYTHING_CHANGED);
      // Server-Sent Events read by eventsource-parser: only `change` events carry a change (the heartbeat is a comment).
      const parser = createParser({ onEvent: (e) => e.event === 'change' && onChange(JSON.parse(e.data)) });
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // Broken (the service stopped, the network between went away): tried again below.
    }
    if (stopped) return;
    broke = true;
    timer = window.setTimeout(() => void open(), RECONNECT_MS[Math.min(failures++, RECONNECT_MS.length - 1)]);
  };
  void open();
  return () => {
    stopped = true;
    window.clearTimeout(timer);
    controller?.abort();
  };
}

function browserTransport(): Transport {
  // A trade that got no answer (the service stopped as the page loaded): the calls then say the service did not answer.
  const session = openSession().catch(() => undefined);
  void session.then(sayLeaving);
  return {
    kind: 'browser',
    call: async (name, args, onProgress) => {
      if (sessionProblem) return sessionProblem;
      try {
        const token = await session;
        if (sessionProblem) return sessionProblem;
        const res = await fetch(`/app/rpc/${encodeURIComponent(name)}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: onProgress ? PROGRESS_MEDIA_TYPE : 'application/json',
            ...(token ? { [SESSION_HEADER]: token } : {}),
          },
          body: JSON.stringify(args ?? {}),
        });
        if (onProgress && res.ok && (res.headers.get('content-type') ?? '').startsWith(PROGRESS_MEDIA_TYPE)) {
          return await readProgressStream(res, onProgress);
        }
        const answer = (await res.json()) as Envelope;
        // No session (none traded, or it ended): the window says so, once, in place of its screens.
        return res.status === 401 ? lostSession(answer) : answer;
      } catch (err) {
        return unreachable(err);
      }
    },
    openExplorer: async (_target, url) => {
      window.open(url, '_blank', 'noopener,noreferrer');
    },
    pathForFile: () => '',
    follow: (onChange) => followStream(session, onChange),
  };
}

function pickTransport(): Transport {
  if (window.nps) return electronTransport(window.nps);
  return browserTransport();
}

export const transport: Transport = pickTransport();
