import { startServer, DEFAULT_HOST, DEFAULT_PORT } from '../service/http/server';
import { openService } from '../service/index';
import { defaultDataDir } from '../service/paths';
import { dataDirOption, parseFlags, UsageError } from './common';

export const serveUsage = `npm run nps -- serve [--port N] [--host H] [--data-dir D]
  Start the service headless on http://127.0.0.1:8730 (port 0 picks a free one).`;

export async function serveCommand(args: string[]): Promise<void> {
  const { values } = parseFlags(args, { port: { type: 'string' }, host: { type: 'string' }, ...dataDirOption });
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port: must be an integer from 0 to 65535, got ${values.port}`);
  const dataDir = values['data-dir'] ?? defaultDataDir();
  const service = openService({ dataDir });
  let server;
  try {
    server = await startServer(service, { host: values.host ?? DEFAULT_HOST, port });
  } catch (err) {
    service.close();
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE') throw new UsageError(`--port: ${port} is already in use; pick another or pass --port 0`);
    throw err;
  }
  process.stdout.write(`NPS service listening on ${server.url}/nps (data: ${dataDir})\n`);
  const running = server;
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    process.stdout.write(`${signal}: closing\n`);
    running
      .close()
      .finally(() => service.close())
      .then(() => process.exit(0), () => process.exit(1));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}
