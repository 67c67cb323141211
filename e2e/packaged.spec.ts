import { _electron, expect, test } from '@playwright/test';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { generateLedger } from '../bench/generate-ledger';
import { locateElectron, requireHere, sandboxForJourneys } from '../src/main/cli/electron-locate';
import { WORKER_MIN_BYTES } from '../src/main/service/engine/import-writer';
import { chooseLedgerFile } from './support/ledger';
import { openScreen, root } from './support/session';

/*
 * The release check (docs/desktop.md): the app as users get it. `npm run package -- --dir` makes
 * the unpacked package for this machine, fuses burnt; the app then runs from it with Playwright,
 * imports a ledger large enough for the import's worker thread (which loads from inside app.asar),
 * copies a new API secret to the clipboard, and quits. It needs an Electron binary (and the network
 * once, for electron-builder's copy of Electron); where there is none it is skipped, saying so.
 */

const electron = locateElectron().path;
const NO_ELECTRON =
  'no Electron binary here (npx install-electron needs the network): the packaged app is checked where Electron exists, see "Release check" in docs/desktop.md';
// Run as the release check (npm run test:packaged), a machine without Electron fails it.
if (!electron && process.env.NPS_RELEASE_CHECK === '1') throw new Error(`the release check cannot run: ${NO_ELECTRON}`);
test.skip(!electron, NO_ELECTRON);
// Said where the run's output shows it, not only in the report: a skipped release check is not a passed one.
if (!electron) process.stdout.write(`packaged.spec.ts skipped: ${NO_ELECTRON}\n`);
test.describe.configure({ mode: 'serial' });

/** The unpacked app electron-builder made for this machine, and its executable. */
function unpacked(): { dir: string; executable: string } {
  const dist = join(root, 'dist');
  const dirs = readdirSync(dist).filter((d) => statSync(join(dist, d)).isDirectory());
  if (process.platform === 'darwin') {
    const dir = dirs.map((d) => join(dist, d)).find((d) => existsSync(join(d, 'NPS Reconcile.app')))!;
    return { dir, executable: join(dir, 'NPS Reconcile.app', 'Contents', 'MacOS', 'NPS Reconcile') };
  }
  const dir = join(
    dist,
    dirs.find((d) => d.endsWith('-unpacked'))!,
  );
  return { dir, executable: join(dir, process.platform === 'win32' ? 'NPS Reconcile.exe' : 'nps-reconcile') };
}

/** @electron/fuses, as electron-builder (which burnt them) depends on it. */
const fusesRequire = createRequire(createRequire(requireHere.resolve('electron-builder/package.json')).resolve('app-builder-lib'));
const fuses = fusesRequire('@electron/fuses') as {
  FuseV1Options: Record<string, number>;
  FuseVersion: { V1: string };
  getCurrentFuseWire(path: string): Promise<Record<string, unknown>>;
  flipFuses(path: string, config: Record<string, unknown>): Promise<number>;
};
const FUSE_ENABLE = 49;
const FUSE_DISABLE = 48;

let work = '';
test.beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'nps-packaged-'));
});
test.afterAll(() => rmSync(work, { recursive: true, force: true }));

test('npm run package makes the app with its fuses burnt and its own better-sqlite3', async () => {
  test.setTimeout(20 * 60_000);
  const tsx = join(dirname(requireHere.resolve('tsx/package.json')), 'dist', 'cli.mjs');
  const made = spawnSync(process.execPath, [tsx, 'scripts/package.ts', '--dir'], { cwd: root, stdio: 'inherit' });
  expect(made.status, 'npm run package -- --dir').toBe(0);
  const { dir, executable } = unpacked();
  const wire = await fuses.getCurrentFuseWire(executable);
  const state = (name: string) => wire[fuses.FuseV1Options[name]!];
  expect(state('RunAsNode')).toBe(FUSE_DISABLE);
  expect(state('EnableNodeOptionsEnvironmentVariable')).toBe(FUSE_DISABLE);
  expect(state('EnableNodeCliInspectArguments')).toBe(FUSE_DISABLE);
  expect(state('EnableEmbeddedAsarIntegrityValidation')).toBe(FUSE_ENABLE);
  expect(state('OnlyLoadAppFromAsar')).toBe(FUSE_ENABLE);
  const resources = process.platform === 'darwin' ? join(dir, 'NPS Reconcile.app', 'Contents', 'Resources') : join(dir, 'resources');
  expect(existsSync(join(resources, 'app.asar'))).toBe(true);
  const stamp = JSON.parse(readFileSync(join(resources, 'electron-native', 'stamp.json'), 'utf8')) as Record<string, string>;
  expect(stamp).toMatchObject({ platform: process.platform, electron: expect.any(String) });
});

test('the packaged app imports a large ledger on its worker thread, copies an API secret, and quits', async () => {
  test.setTimeout(5 * 60_000);
  // Playwright drives Electron through its Node inspector, which the package's fuses turn off: a
  // copy with that one fuse on is driven; everything else is the package as made.
  const { dir, executable } = unpacked();
  const copy = join(work, 'app');
  cpSync(dir, copy, { recursive: true, verbatimSymlinks: true });
  const copied = join(copy, executable.slice(dir.length + 1));
  await fuses.flipFuses(copied, {
    version: fuses.FuseVersion.V1,
    [fuses.FuseV1Options.EnableNodeCliInspectArguments!]: true,
    resetAdHocDarwinSignature: process.platform === 'darwin',
  });

  const dataDir = join(work, 'data');
  const ledger = join(work, 'large-ledger.csv');
  const generated = await generateLedger(ledger, 6000, { seed: 33 });
  expect(generated.bytes).toBeGreaterThan(WORKER_MIN_BYTES);

  const app = await _electron.launch({
    executablePath: copied,
    chromiumSandbox: sandboxForJourneys(copied),
    // An installed app takes its better-sqlite3 from its own package, whatever the environment names.
    env: { ...process.env, NPS_DATA_DIR: dataDir, NPS_PORT: '0', NPS_SQLITE_BINDING: join(work, 'not-a-binding.node') } as Record<
      string,
      string
    >,
  });
  const page = await app.firstWindow();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));

  const rows = generated.rows.toLocaleString('en-US');
  await chooseLedgerFile(page, ledger);
  await page.getByRole('button', { name: 'Preview the import' }).click();
  await page.getByRole('button', { name: `Import ${rows} rows` }).click();
  await expect(page.getByTestId('import-result')).toContainText('Import finished', { timeout: 120_000 });
  await expect(page.getByTestId('import-counts')).toContainText(rows);

  await openScreen(page, 'Settings');
  await page.getByRole('button', { name: 'Create API key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create an API key' });
  await dialog.getByLabel('Label').fill('Release check');
  await dialog.getByRole('button', { name: 'Create key' }).click();
  const shown = page.getByRole('dialog', { name: 'API key created' });
  const secret = (await shown.getByTestId('created-api-secret').textContent())!;
  await shown.getByRole('button', { name: 'Copy secret: value' }).click();
  await expect(shown.getByRole('button', { name: 'Copy secret: value' })).toHaveText('Copied');
  expect(await app.evaluate(({ clipboard }) => clipboard.readText())).toBe(secret);
  await shown.getByLabel('I have stored the secret').check();
  await shown.getByRole('button', { name: 'Done' }).click();

  const exited = new Promise<number | null>((resolve) => app.process().once('exit', (code) => resolve(code)));
  await app.close();
  expect(await exited).toBe(0);
  expect(existsSync(join(dataDir, 'api.json'))).toBe(false);
  expect(errors).toEqual([]);
  // Nothing went wrong that only the log saw.
  const logs = join(dataDir, 'logs');
  const bad = readdirSync(logs)
    .flatMap((f) => readFileSync(join(logs, f), 'utf8').split('\n'))
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { level: number; msg?: string })
    .filter((l) => l.level >= 50);
  expect(bad).toEqual([]);
});
