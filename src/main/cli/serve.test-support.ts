import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../../..');

export interface ServingProcess {
  child: ChildProcess;
  /** e.g. http://127.0.0.1:41234 (without /nps) */
  url: string;
  /** SIGTERM and wait for the exit (nothing when it already ended). */
  stop(): Promise<void>;
  /** SIGKILL, as a crash would, and wait for the exit. */
  kill(): Promise<void>;
}

const ended = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

function end(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  return new Promise((resolve) => {
    if (ended(child)) return resolve();
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/** `npm run nps -- serve --port 0 --data-dir D …` as a user runs it (the compiled CLI, its own process), once it listens. */
export async function startServe(dataDir: string, args: string[] = []): Promise<ServingProcess> {
  const child = spawn(process.execPath, ['out/main/cli.js', 'serve', '--port', '0', ...args, '--data-dir', dataDir], { cwd: root });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${out}`)), 60_000);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http:\/\/\S+)\/nps/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${out}`));
    });
  });
  return { child, url, stop: () => end(child, 'SIGTERM'), kill: () => end(child, 'SIGKILL') };
}
