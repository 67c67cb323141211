import { createHash, randomBytes } from 'node:crypto';

/*
 * The browser window's sessions (browser mode, app-door.ts).
 *
 * A link carries a one-time code in its fragment. The page trades it, once, at POST /app/session
 * for two things: a cookie (HttpOnly, SameSite=Strict) and a token the page keeps to itself (in
 * its tab's sessionStorage, never in a cookie) and sends as the X-NPS-Session header with every
 * call. A call needs both. Browsers send a host's cookies to every port of it, so a page any other
 * local server serves receives the cookie; it never has the token, which only this origin's page
 * can read. A cookie alone, whatever Origin comes with it, is refused.
 *
 * A session ends when its window closes (the page says it leaves; a reload comes back within the
 * grace), or after it has made no call for the idle time (the open window calls every 10 s, so
 * that ends only windows gone without a word: a crash, a machine asleep). A link already used, or
 * from before the service restarted, gets a refusal that says exactly that, and how to get a
 * fresh one (npm run nps -- open).
 */

/** The header the page sends its token in. */
export const SESSION_HEADER = 'x-nps-session';

/** Minutes a session lasts without a call from its window, by default. */
export const DEFAULT_SESSION_IDLE_MINUTES = 30;

/** A window that said it leaves and makes no call within this long (a reload does) has closed. */
const LEAVE_GRACE_MS = 30_000;
/** Sessions kept at most (windows open at once): past it, the least recently used ends. */
const MAX_SESSIONS = 64;
/** Links handed out and not yet opened, kept at most; past it, the oldest stops working. */
const MAX_CODES = 32;
/** Used codes remembered, to tell a used link from one of another run. */
const MAX_USED = 256;

const FRESH_LINK = 'for a fresh link, run: npm run nps -- open (with --data-dir DIR when the service runs on another folder)';

const digest = (secret: string) => createHash('sha256').update(secret).digest('base64url');
const secret = (): string => randomBytes(32).toString('base64url');

interface Session {
  /** The digest of the cookie of the browser it was given to. */
  cookie: string;
  lastCall: number;
  /** When the window said it leaves. */
  leftAt?: number;
}

export type Trade = { token: string; idleMinutes: number; cookie?: string } | { refused: string };

export class WindowSessions {
  /** By the digest of their token (never the token itself). */
  private readonly sessions = new Map<string, Session>();
  private readonly codes = new Set<string>();
  private readonly used = new Set<string>();

  /** `firstCode`: the code of the link the service printed when it started. */
  constructor(
    private readonly now: () => number,
    private readonly idleMs: number,
    firstCode?: string,
  ) {
    if (firstCode !== undefined) this.codes.add(digest(firstCode));
  }

  /** A new one-time code, for a link. */
  newCode(): string {
    const code = secret();
    this.codes.add(digest(code));
    if (this.codes.size > MAX_CODES) this.codes.delete(this.codes.values().next().value!);
    return code;
  }

  /**
   * Trade a link's code for a session. `cookie`: the browser's session cookie, if it sent one: a
   * second window of the same browser keeps it, and gets a token of its own. Answers the token, and
   * a new cookie to set when the browser had none (or one this run does not know).
   */
  trade(code: unknown, cookie: string | undefined): Trade {
    if (typeof code !== 'string' || code === '') return { refused: `code: the link has none; ${FRESH_LINK}` };
    const key = digest(code);
    if (!this.codes.has(key)) {
      if (this.used.has(key)) return { refused: `code: this link was already used (a link opens one window, once); ${FRESH_LINK}` };
      return {
        refused: `code: this link is not from this run of the service (it has restarted since the link was given, or the link is incomplete); ${FRESH_LINK}`,
      };
    }
    this.codes.delete(key);
    this.used.add(key);
    if (this.used.size > MAX_USED) this.used.delete(this.used.values().next().value!);
    this.sweep();
    const known = cookie !== undefined && [...this.sessions.values()].some((s) => s.cookie === digest(cookie));
    const browser = known ? cookie : secret();
    const token = secret();
    this.sessions.set(digest(token), { cookie: digest(browser), lastCall: this.now() });
    if (this.sessions.size > MAX_SESSIONS) this.sessions.delete(this.sessions.keys().next().value!);
    return { token, idleMinutes: this.idleMs / 60_000, ...(known ? {} : { cookie: browser }) };
  }

  /** Whether a call may go on: undefined when it may, else the refusal's sentence. The session's idle time starts again. */
  check(token: string | undefined, cookie: string | undefined): string | undefined {
    if (token === undefined && cookie === undefined)
      return `session: this window has none; open the link the service gave when it started, or ${FRESH_LINK}`;
    if (token === undefined)
      return `session: a cookie alone opens no session; only the window that opened the link can call (it sends its ${SESSION_HEADER} header); ${FRESH_LINK}`;
    const key = digest(token);
    const session = this.sessions.get(key);
    if (session && this.ended(session)) this.sessions.delete(key);
    else if (session && cookie !== undefined && session.cookie === digest(cookie)) {
      // Most recently used last: the first in the map is the one to end when there are too many.
      this.sessions.delete(key);
      session.lastCall = this.now();
      session.leftAt = undefined;
      this.sessions.set(key, session);
      return undefined;
    } else if (session) return `session: this window's session belongs to another browser; ${FRESH_LINK}`;
    return `session: this window's session has ended (no call from it for ${this.idleMs / 60_000} minutes, its window closed, or the service restarted since it opened); ${FRESH_LINK}`;
  }

  /**
   * Whether a window's session is still open, without counting it as a call (an event stream
   * asks, and must not keep a window alive that has gone quiet).
   */
  isOpen(token: string | undefined, cookie: string | undefined): boolean {
    if (token === undefined || cookie === undefined) return false;
    const session = this.sessions.get(digest(token));
    return session !== undefined && session.cookie === digest(cookie) && !this.ended(session);
  }

  /** Which window a session is, for the changes it makes (changes.ts): not its token, which stays secret. */
  windowOf(token: string): string {
    return `w-${digest(token).slice(0, 16)}`;
  }

  /** The window is going (closed, or reloading: a reload calls again within the grace and keeps its session). */
  leave(token: string | undefined, cookie: string | undefined): void {
    if (token === undefined || cookie === undefined) return;
    const session = this.sessions.get(digest(token));
    if (session && session.cookie === digest(cookie)) session.leftAt = this.now();
  }

  /** Sessions open now. */
  get size(): number {
    this.sweep();
    return this.sessions.size;
  }

  private ended(s: Session): boolean {
    const now = this.now();
    return now - s.lastCall > this.idleMs || (s.leftAt !== undefined && now - s.leftAt > LEAVE_GRACE_MS);
  }

  private sweep(): void {
    for (const [key, s] of this.sessions) if (this.ended(s)) this.sessions.delete(key);
  }
}
