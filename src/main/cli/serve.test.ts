import type { ChainPage } from '../../shared/catalogue';
import { parseAnswer } from '../service/http/answers.test-support';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');

describe('npm run nps -- serve', () => {
  it('prints its base URL, serves, and closes cleanly on SIGTERM and SIGINT', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const dataDir = mkdtempSync(join(tmpdir(), 'nps-serve-'));
      const child = spawn(process.execPath, ['out/main/cli.js', 'serve', '--port', '0', '--data-dir', dataDir], {
        cwd: root,
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      let out = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (out += c));
      try {
        const url = await new Promise<string>((resolve, reject) => {
          // The CLI compiles itself first: seconds on a busy machine.
          const timer = setTimeout(() => reject(new Error(`no URL printed: ${out}`)), 60_000);
          child.stdout.on('data', () => {
            const m = /listening on (http:\/\/127\.0\.0\.1:\d+)\/nps/.exec(out);
            if (m) {
              clearTimeout(timer);
              resolve(m[1]!);
            }
          });
        });
        const body = parseAnswer(
          'GET',
          '/nps/chains?chain_identifier=TRON',
          await (await fetch(`${url}/nps/chains?chain_identifier=TRON`)).text(),
        ) as { data: ChainPage };
        expect(body.data.chains[0]?.chain_id).toBe('TRON');
        expect(existsSync(join(dataDir, 'api.json'))).toBe(true);
        child.kill(signal);
        expect(await exited).toBe(0);
        expect(existsSync(join(dataDir, 'api.json'))).toBe(false);
      } finally {
        // Whatever failed above, the server does not outlive the test.
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
          await exited;
        }
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  }, 150_000);

  it('takes a relative --data-dir or NPS_DATA_DIR as an absolute path from the folder it runs in', async () => {
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'nps-serve-relative-')));
    try {
      for (const [args, env] of [
        [['--data-dir', 'my books'], {}],
        [[], { NPS_DATA_DIR: 'my books' }],
      ] as const) {
        const child = spawn(process.execPath, [join(root, 'out/main/cli.js'), 'serve', '--port', '0', ...args], {
          cwd: base,
          env: { ...process.env, ...env },
        });
        const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
        let out = '';
        child.stderr.on('data', (c) => (out += c));
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`not listening: ${out}`)), 60_000);
          child.stdout.on('data', (c) => {
            out += c;
            if (out.includes('listening on')) {
              clearTimeout(timer);
              resolve();
            }
          });
        });
        expect(out).toContain(`(data: ${join(base, 'my books')})`);
        expect(existsSync(join(base, 'my books', 'api.json'))).toBe(true);
        // Answered: the service is past its start (its signal handlers are in place).
        expect((await fetch(`${/listening on (\S+)/.exec(out)![1]}/chains`)).status).toBe(200);
        child.kill('SIGTERM');
        expect(await exited, out).toBe(0);
      }
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  }, 150_000);

  it('refuses a bad port in one line', async () => {
    const child = spawn(process.execPath, ['out/main/cli.js', 'serve', '--port', 'x'], { cwd: root });
    let err = '';
    child.stderr.on('data', (c) => (err += c));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(err.trim()).toBe('--port: must be an integer from 0 to 65535, got x');
  });
});
