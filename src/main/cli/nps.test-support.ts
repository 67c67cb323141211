import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../../..');

/**
 * Run `npm run nps -- ARGS` as a user would (its own process), and collect what it printed and its
 * exit code. The compiled CLI itself (out/main/cli.js, what scripts/nps.mjs runs): the test run
 * built it first (scripts/vitest-global-setup.mjs), and a source saved while the tests run must not
 * rebuild it under them.
 */
export function nps(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['out/main/cli.js', ...args], { cwd: root, env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}
