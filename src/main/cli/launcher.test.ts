import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { launchFlags } from '../../../scripts/launch-flags.mjs';
import { nps } from './nps.test-support';

const root = join(import.meta.dirname, '../../..');
const git = (args: string[]) => promisify(execFile)('git', args, { cwd: root }).then((r) => r.stdout);

test('npm run nps runs the compiled CLI: --help lists every command without loading the service', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['scripts/nps.mjs', '--help'], { cwd: root });
  for (const command of ['serve', 'start', 'keys', 'call', 'import', 'chains', 'tokens', 'tickets']) {
    expect(stdout).toMatch(new RegExp(`^ {2}npm (run nps -- |start)${command === 'start' ? '' : command}`, 'm'));
  }
}, 60_000);

test('package.json gives the nps command: the same CLI as npm run nps', async () => {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  expect(pkg.bin).toEqual({ nps: 'scripts/nps.mjs' });
  // npm link puts the file itself on the PATH: it must run as a program.
  expect(readFileSync(join(root, pkg.bin.nps!), 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);
  expect((await git(['ls-files', '-s', pkg.bin.nps!])).slice(0, 6)).toBe('100755');
});

test('a typo is named in one line with the closest valid name, exit 2: a command, a subcommand, an option', async () => {
  expect(await nps(['frobnicat'])).toEqual({
    code: 2,
    out: '',
    err: 'nps: unknown command "frobnicat"; did you mean "reconcile"? (nps --help lists them)\n',
  });
  expect(await nps(['tiket', 'list'])).toMatchObject({
    code: 2,
    out: '',
    err: expect.stringMatching(/^nps: unknown command "tiket"; did you mean "tickets"\?/),
  });
  expect(await nps(['tickets', 'lst'])).toEqual({
    code: 2,
    out: '',
    err: 'nps tickets: unknown subcommand "lst"; did you mean "list"? (nps tickets --help lists them)\n',
  });
  expect(await nps(['keys', 'create', '--label', 'x', '--walets', 'Treasury'])).toEqual({
    code: 2,
    out: '',
    err: 'nps keys: unknown option "--walets"; did you mean "--wallets"? (add --help to see the options)\n',
  });
  expect(await nps(['import', 'x.csv', '--dryrun'])).toMatchObject({
    code: 2,
    err: expect.stringMatching(/^nps import: unknown option "--dryrun"; did you mean "--dry-run"\?.*\n$/),
  });
  // A flag without its value, or one given a value it does not take: one line, never the parser's text.
  expect(await nps(['balances', 'check', '--balance', '-5'])).toEqual({
    code: 1,
    out: '',
    err: '--balance: needs a value; for a value that starts with "-", write --balance=VALUE (e.g. --balance=-5)\n',
  });
  expect(await nps(['keys', 'list', '--json=yes'])).toEqual({ code: 1, out: '', err: '--json: takes no value (give --json alone)\n' });
}, 60_000);

test('every command a message, a usage or a document names is one the CLI has', async () => {
  const help = (await nps(['--help'])).out;
  const commands = new Set([...help.matchAll(/^ {2}npm run nps -- ([a-z]+)/gm)].map((m) => m[1]!));
  expect(commands.size).toBeGreaterThan(10);
  const files = (await git(['ls-files', 'src', 'docs', 'README.md', 'e2e', 'scripts']))
    .split('\n')
    .filter((f) => /\.(ts|tsx|md|mjs)$/.test(f));
  const named: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/(?:npm run nps --|npx nps|(?:`|\(|: |\bor |\bwith )nps) ([a-z][a-z-]*)/g))
      named.push(`${file}: ${m[1]}`);
  }
  expect(named.length).toBeGreaterThan(10);
  expect(named.filter((n) => !commands.has(n.split(': ')[1]!))).toEqual([]);
}, 60_000);

test('call says which address it tried, where that came from, and the flags that point elsewhere', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'nps-call-'));
  try {
    // A service that ran on the folder and stopped: api.json is left, nothing listens on its port.
    writeFileSync(join(dir, 'api.json'), JSON.stringify({ base_url: 'http://127.0.0.1:9/nps', pid: 1 }));
    const secret = ['--secret', 'a'.repeat(64)];
    const stale = await nps(['call', 'GET', '/nps/ticket', ...secret, '--data-dir', dir]);
    expect(stale.code).toBe(1);
    expect(stale.err).toMatch(
      new RegExp(
        `^cannot reach http://127\\.0\\.0\\.1:9 \\(named by ${join(dir, 'api.json')}\\): .*; start the service \\(nps serve --data-dir ${dir}\\), or point at a running one with --data-dir DIR or --base URL\\n$`,
      ),
    );
    const given = await nps(['call', 'GET', '/nps/ticket', ...secret, '--base', 'http://127.0.0.1:9']);
    expect(given.err).toMatch(/^cannot reach http:\/\/127\.0\.0\.1:9 \(given with --base\): .*; is the service running there\?\n$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

test('the nps command gives the large young generation to serve and import only: a quick command starts once', () => {
  expect(launchFlags(['serve', '--port', '0'])).toEqual(['--max-semi-space-size=64']);
  expect(launchFlags(['import', 'ledger.csv', '--wallet', 'Treasury'])).toEqual(['--max-semi-space-size=32']);
  for (const quick of [[], ['--help'], ['constructor'], ['toString'], ['chains', 'list'], ['tickets', 'list'], ['user', 'Anna']])
    expect(launchFlags(quick)).toEqual([]);
});

// /proc shows a process's command line: Linux only.
test.skipIf(process.platform !== 'linux')(
  'the nps command runs serve with a young generation of 64 MB semi-spaces, in the process it was started as',
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nps-serve-heap-'));
    const child = spawn(process.execPath, ['scripts/nps.mjs', 'serve', '--port', '0', '--data-dir', dir], { cwd: root });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          const m = /listening on (http:\/\/\S+)\/nps/.exec(out);
          if (m) resolve(m[1]!);
        });
        child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
      });
      expect(readFileSync(`/proc/${child.pid}/cmdline`, 'utf8').split('\0')).toContain('--max-semi-space-size=64');
      expect((await fetch(`${url}/nps/chains`)).status).toBe(200);
      // The pid its caller holds is the service's: stopping it stops the service.
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      await expect(fetch(`${url}/nps/chains`)).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  },
  60_000,
);
