import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const root = join(import.meta.dirname, '../../..');

test('npm run nps runs the compiled CLI: --help lists every command without loading the service', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['scripts/nps.mjs', '--help'], { cwd: root });
  for (const command of ['serve', 'start', 'keys', 'call', 'import', 'chains', 'tokens']) {
    expect(stdout).toMatch(new RegExp(`^ {2}npm (run nps -- |start)${command === 'start' ? '' : command}`, 'm'));
  }
}, 60_000);

test('an unknown command is refused with the usage and exit code 2', async () => {
  const failed = await promisify(execFile)(process.execPath, ['scripts/nps.mjs', 'frobnicate'], { cwd: root }).catch((e: unknown) => e);
  expect(failed).toMatchObject({ code: 2, stdout: expect.stringMatching(/^Usage:/) });
}, 60_000);
