import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { StoreChange } from '../../../shared/changes';
import { MAX_QUEUED_CHANGES } from '../changes';
import { openClaimTicket } from '../tickets/fixtures.test-support';
import { tempService } from '../test-support';
import { newUiCode } from './app-door';
import { startServer, type RunningServer } from './server';
import { LOCAL_TOKEN_FILE, LOCAL_TOKEN_HEADER } from '../data-folder';
import { SESSION_HEADER } from './sessions';
import { readFileSync } from 'node:fs';

/*
 * The browser window's event stream, GET /app/events, on a real server over loopback: only a
 * window with a session opens it; it carries others' changes as Server-Sent Events and not the
 * window's own; a window that stops reading is bounded, then told to reload everything.
 */

/** The service's clock: moved to let a session idle. */
let clock = Date.now();
const service = tempService({ now: () => clock });
let server: RunningServer;
let uiDir: string;
let host: string;

beforeAll(async () => {
  uiDir = mkdtempSync(join(tmpdir(), 'nps-ui-'));
  writeFileSync(join(uiDir, 'index.html'), '<!doctype html><title>t</title>');
  server = await startServer(service, {
    port: 0,
    ui: { dir: uiDir, code: newUiCode(), idleMinutes: 30, eventsHeartbeatMs: 100 },
    log: () => {},
  });
  host = `127.0.0.1:${server.port}`;
});
afterAll(async () => {
  await server.close();
  service.dispose();
  rmSync(uiDir, { recursive: true, force: true });
});

/** A window's session: a fresh link asked for as `nps open` asks, its code traded as the page trades it. */
async function newWindow(cookie?: string): Promise<{ token: string; cookie: string }> {
  const linked = await fetch(`${server.url}/local/session-link`, {
    method: 'POST',
    headers: { [LOCAL_TOKEN_HEADER]: readFileSync(join(service.dataDir, LOCAL_TOKEN_FILE), 'utf8').trim() },
  });
  const { link } = ((await linked.json()) as { data: { link: string } }).data;
  const res = await fetch(`${server.url}/app/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: JSON.stringify({ code: /#code=([\w-]+)/.exec(link)![1] }),
  });
  const answer = (await res.json()) as { data: { token: string } };
  return { token: answer.data.token, cookie: cookie ?? String(res.headers.get('set-cookie')).split(';')[0]! };
}

const headersOf = (w: { token: string; cookie: string }) => ({ [SESSION_HEADER]: w.token, cookie: w.cookie });

/** Open the stream; resolves with the response as it starts (its body still coming). */
function openStream(headers: Record<string, string>): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path: '/app/events', headers: { host, ...headers } }, resolve);
    req.on('error', reject);
    req.end();
  });
}

/** The `change` events of a stream as they come, and a wait for the next few (bounded). */
function eventsOf(res: IncomingMessage) {
  const events: StoreChange[] = [];
  let buffer = '';
  let wake = () => {};
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    buffer += chunk;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split('\n').find((l) => l.startsWith('data: '));
      if (block.includes('event: change') && data) events.push(JSON.parse(data.slice(6)) as StoreChange);
    }
    wake();
  });
  const next = (count: number, withinMs = 5_000) =>
    new Promise<StoreChange[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${events.length} events within ${withinMs} ms, not ${count}`)), withinMs);
      wake = () => {
        if (events.length >= count) {
          clearTimeout(timer);
          resolve(events);
        }
      };
      wake();
    });
  return { events, next };
}

function openTicket(n: number): string {
  return openClaimTicket(service.ctx.db, { subject: `s-${n}`, at: Date.now() });
}

const rpc = (w: { token: string; cookie: string }, name: string, input: unknown) =>
  fetch(`${server.url}/app/rpc/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headersOf(w) },
    body: JSON.stringify(input),
  }).then((r) => r.json() as Promise<{ status: number; msg: string }>);

describe('GET /app/events', () => {
  test('without a session, or with a cookie alone, or from another page, it is refused and nothing streams', async () => {
    const w = await newWindow();
    const refused: Record<string, string>[] = [{}, { cookie: w.cookie }, { [SESSION_HEADER]: 'not-a-token', cookie: w.cookie }];
    for (const headers of refused) {
      const res = await fetch(`${server.url}/app/events`, { headers });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { status: number }).status).toBe(2001);
    }
    const foreign = await fetch(`${server.url}/app/events`, { headers: { ...headersOf(w), origin: 'http://127.0.0.1:9999' } });
    expect(foreign.status).toBe(403);
  });

  test("another window's change arrives as an event; the window's own does not", async () => {
    const a = await newWindow();
    const bWindow = await newWindow(a.cookie);
    const id = openTicket(1);
    const res = await openStream(headersOf(a));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const stream = eventsOf(res);
    // Window A's own change: not news to A.
    expect((await rpc(a, 'app-user-set', { name: 'Anna' })).status).toBe(0);
    const other = openTicket(2);
    expect((await rpc(a, 'ticket-transition', { ticket_id: other, to: 'Dismissed', note: 'mine' })).status).toBe(0);
    // Window B resolves: A hears it.
    expect((await rpc(bWindow, 'ticket-transition', { ticket_id: id, to: 'Resolved', note: 'paid' })).status).toBe(0);
    const [event] = await stream.next(1);
    expect(event).toMatchObject({ topic: 'tickets', what: `Not in ledger ${id.slice(0, 8)} (1 ETH) resolved`, ids: [id], actor: 'Anna' });
    expect(stream.events).toHaveLength(1);
    res.destroy();
  });

  test('a window that stops reading is held to a bounded few, then told to reload everything; the service keeps no more', async () => {
    const w = await newWindow();
    const res = await openStream(headersOf(w));
    res.pause();
    // Far more than the socket's buffers and the stream's take: ~24 MB of words if they were all kept.
    const what = 'x'.repeat(240);
    const rounds = 100_000;
    for (let n = 0; n < rounds; n++) {
      await service.ctx.changes.announce(
        'tickets',
        JSON.stringify({ change: { topic: 'tickets', what, ids: [String(n)], actor: 'tool', at: n } }),
      );
    }
    const stream = eventsOf(res);
    res.resume();
    const everything = new Promise<void>((resolve, reject) => {
      const deadline = Date.now() + 10_000;
      const check = setInterval(() => {
        if (stream.events.some((e) => e.topic === 'everything')) resolve();
        else if (Date.now() > deadline) reject(new Error(`no word to reload everything among ${stream.events.length} events`));
        else return;
        clearInterval(check);
      }, 20);
    });
    await everything;
    // What arrived is what the pipes held and the bounded few: far fewer than were announced.
    expect(stream.events.length).toBeLessThan(rounds / 2);
    const at = stream.events.findIndex((e) => e.topic === 'everything');
    expect(stream.events.length - at - 1).toBeLessThanOrEqual(MAX_QUEUED_CHANGES);
    res.destroy();
  });

  test("a stream ends with its window's session (no call for the idle time), and a change after it reaches nobody", async () => {
    const w = await newWindow();
    const res = await openStream(headersOf(w));
    expect(res.statusCode).toBe(200);
    const stream = eventsOf(res);
    const ended = new Promise<void>((resolve) => res.on('end', resolve));
    clock += 31 * 60_000;
    await ended;
    await service.ctx.changes.announce(
      'tickets',
      JSON.stringify({ change: { topic: 'tickets', what: 'late', ids: [], actor: 'x', at: 1 } }),
    );
    expect(stream.events).toEqual([]);
    clock = Date.now();
  });
});
