import { createServer, connect, type Socket } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { Turns } from './turns';

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((c) => c()));

/** A loopback connection: what is written on `client` comes out of the server's side in a later poll of the event loop. */
async function loopback(onData: () => void): Promise<Socket> {
  const server = createServer((s) => s.on('data', onData));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const client = connect(port, '127.0.0.1');
  await new Promise<void>((r) => client.once('connect', r));
  // Wait for the server to have taken the connection.
  await new Promise((r) => setTimeout(r, 50));
  closers.push(() => {
    client.destroy();
    server.close();
  });
  return client;
}

test('callers are let through one a turn of the event loop, in the order they came, with the I/O of each turn between them', async () => {
  const order: string[] = [];
  const client = await loopback(() => order.push('io'));
  const turns = new Turns();
  const callers = [1, 2, 3, 4].map((i) =>
    turns.next().then(() => {
      order.push(`caller ${i}`);
      // A request arriving while caller i works: served before the next caller is let through.
      if (i < 4) client.write('x');
    }),
  );
  expect(turns.queued).toBe(4);
  await Promise.all(callers);
  expect(order).toEqual(['caller 1', 'io', 'caller 2', 'io', 'caller 3', 'io', 'caller 4']);
  expect(turns.queued).toBe(0);
  // Idle again: the next caller comes through on its own.
  await turns.next();
});
