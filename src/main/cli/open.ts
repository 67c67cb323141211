import { LOCAL_TOKEN_HEADER, findService } from '../service/data-folder';
import { defaultDataDir } from '../service/paths';
import { dataDirOption, parseFlags } from './common';
import { UsageError } from './errors';
import { remoteInvoker } from './running';
import { openUsage } from './usage';

/**
 * `npm run nps -- open`: a fresh link to the browser window of the service running on the data
 * folder (asked through its command-line door; each link opens one window, once).
 */
export async function openCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, { ...dataDirOption });
  if (positionals.length) throw new UsageError(openUsage);
  const dataDir = values['data-dir'] ?? defaultDataDir();
  const running = await findService(dataDir);
  if (!running)
    throw new UsageError(
      `no service runs on ${dataDir}: start the app with npm start (it prints the link to open)${values['data-dir'] === undefined ? ', or pass the --data-dir it runs on' : ''}`,
    );
  if (!running.ui) {
    const info = await remoteInvoker(running).invoke('app-info', {}, { actor: 'cli' });
    throw new UsageError(
      info.mode === 'electron'
        ? `the desktop app runs on ${dataDir} (process ${running.pid}): its own window is the app; there is no browser link to give`
        : `the service on ${dataDir} (process ${running.pid}) serves no screens: it was started without --ui; stop it, then start the app with npm start`,
    );
  }
  const res = await fetch(`${running.origin}/local/session-link`, {
    method: 'POST',
    headers: { [LOCAL_TOKEN_HEADER]: running.token, 'content-type': 'application/json' },
    body: '{}',
  });
  const answer = (await res.json()) as { status: number; data: { link?: unknown } | null; msg: string };
  if (answer.status !== 0 || typeof answer.data?.link !== 'string') throw new UsageError(`the service did not give a link: ${answer.msg}`);
  // The same line the service printed when it started; the link works once.
  process.stdout.write(`NPS Reconcile (browser mode): ${answer.data.link}\n`);
}
