import type { FastifyInstance } from 'fastify';
import type { Socket } from 'node:net';
import { ErrorCodes } from '../../../shared/errors';

/*
 * Open connections, bounded, without letting anyone who holds connections open (and shows no
 * key) keep a signed client out.
 *
 * Past the bound, a new connection is not refused while an older one is doing nothing for the
 * service: the connection that has waited longest without work running on it (idle between
 * requests, or still sending a request's headers or body) is closed to make room. Work running is
 * a request whose body has arrived and whose handler has not answered yet; such a connection is
 * never closed for another. Only when every open connection has work running is the new one
 * refused, at once, in the envelope (4003, Retry-After). A program that opens connections and sends
 * nothing, or half a request, therefore only ever pushes out its own oldest ones, while a client
 * whose request arrives whole is answered. Together with the deadlines (server.ts: a request's
 * headers and body must arrive within the request deadline, an idle kept-alive connection is closed
 * after a few seconds) and admission after authentication, no one without a key can make a signed
 * client wait or be refused.
 *
 * The same bookkeeping lets the service stop: when it closes, connections without work running are
 * closed at once, and the others once their answer is sent.
 */

/** Open connections at most, by default: far more than the local tools of one machine need. */
export const DEFAULT_MAX_CONNECTIONS = 1024;

/** A refused request's body is read (and dropped) to its end only when it announces at most this. */
const DRAIN_BYTES = 1024 * 1024;

/** Seconds a client refused for want of a connection is asked to wait. */
const RETRY_AFTER_S = 1;

interface Tracked {
  /** idle: between requests; reading: a request's headers came, its body may still be coming; working: its handler runs. */
  state: 'idle' | 'reading' | 'working';
}

function refusal(status: string, code: number, msg: string): string {
  const body = JSON.stringify({ status: code, data: null, msg });
  return (
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Retry-After: ${RETRY_AFTER_S}\r\nConnection: close\r\n\r\n${body}`
  );
}

/**
 * Connections whose request was answered before its body had all arrived (refused from its headers,
 * or too large): what still comes of it is dropped, and if it does not end by the request deadline
 * the connection is closed without a second answer (server.ts).
 */
const answeredEarly = new WeakSet<Socket>();
export const wasAnsweredEarly = (socket: Socket): boolean => answeredEarly.has(socket);

/** A response has begun on the socket (Node's own marker): nothing more may be written before it. */
const answering = (socket: Socket): boolean =>
  (socket as unknown as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;

/**
 * Bound the server's open connections at `max` as described above. Call before listen; the hooks
 * it adds see every request. `onEvict`: told how many connections were closed to make room, for the
 * log (at most once a second).
 */
export function boundConnections(app: FastifyInstance, max: number, onEvict?: (closed: number, open: number) => void): void {
  /** Open connections, the longest without work first (a Map keeps the order things were set in). */
  const open = new Map<Socket, Tracked>();
  const touch = (socket: Socket, state: Tracked['state']) => {
    const tracked = open.get(socket);
    if (!tracked) return;
    open.delete(socket);
    tracked.state = state;
    open.set(socket, tracked);
  };
  let evicted = 0;
  let lastSaid = 0;
  /** The server is stopping (preClose, below). */
  let closing = false;

  app.server.on('connection', (socket: Socket) => {
    open.set(socket, { state: 'idle' });
    socket.once('close', () => open.delete(socket));
    if (open.size <= max) return;
    for (const [other, tracked] of open) {
      if (other === socket || tracked.state === 'working') continue;
      open.delete(other);
      // Still sending its request: told why, where nothing has been answered on it yet.
      if (tracked.state === 'reading' && !answering(other) && other.writable)
        other.end(
          refusal(
            '503 Service Unavailable',
            ErrorCodes.BUSY,
            `busy: more than ${max} connections are open; this one had sent no whole request for the longest, so it was closed; send the request again`,
          ),
        );
      other.destroySoon();
      evicted++;
      const now = Date.now();
      if (onEvict && now - lastSaid >= 1000) {
        lastSaid = now;
        onEvict(evicted, open.size);
        evicted = 0;
      }
      return;
    }
    open.delete(socket);
    socket.end(
      refusal(
        '503 Service Unavailable',
        ErrorCodes.BUSY,
        `busy: ${max} connections are open and every one has work running (the service takes ${max} at once); retry in ${RETRY_AFTER_S} s`,
      ),
    );
    socket.destroySoon();
  });

  // Request headers arrived: the connection is active, its body not yet read.
  app.addHook('onRequest', (req, _reply, done) => {
    answeredEarly.delete(req.raw.socket);
    touch(req.raw.socket, 'reading');
    done();
  });
  // The body has arrived and been parsed: work runs on the connection until the answer is sent.
  app.addHook('preHandler', (req, _reply, done) => {
    touch(req.raw.socket, 'working');
    done();
  });
  app.addHook('onResponse', (req, _reply, done) => {
    if (!req.raw.complete) {
      answeredEarly.add(req.raw.socket);
      // A body of at most a megabyte announced is read to its end and dropped, so the connection can
      // take the next request; a larger one, or one of no announced length, is not read any further
      // (the client has its answer), and the request deadline closes the connection.
      const declared = Number(req.headers['content-length']);
      if (!(declared <= DRAIN_BYTES)) req.raw.pause();
    }
    touch(req.raw.socket, 'idle');
    // Stopping: the answer is sent, the connection is not kept.
    if (closing) req.raw.socket.destroySoon();
    done();
  });

  // Stopping (SIGTERM, the window closing): requests being answered finish, and every other
  // connection is closed now. Node stops looking at deadlines once the server closes, so a
  // connection that holds half a request would otherwise keep the service from ever stopping.
  app.addHook('preClose', (done) => {
    closing = true;
    for (const [socket, tracked] of open) if (tracked.state !== 'working') socket.destroy();
    done();
  });
}
