import { chromium } from '@playwright/test';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { generateLedger } from './generate-ledger';

/*
 * npm run bench:ui-scroll -- [--rows 1000000] [--keep]
 * The Ledger screen on a big ledger, in Debian's Chromium against `serve --ui`: time to the first
 * page, to the last row with End (the list is taller than a browser lets an element be, so the
 * scroll bar is scaled), and to settle after wheel flings; prints the numbers and which row is
 * shown, so "a million rows scroll smoothly" is something to measure, not to believe.
 */

const { values } = parseArgs({ options: { rows: { type: 'string', default: '1000000' }, keep: { type: 'boolean', default: false } } });
const rows = Number(values.rows);
if (!Number.isSafeInteger(rows) || rows < 1) throw new Error('--rows: must be a positive integer');
const root = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'nps-bench-ui-'));
const dataDir = join(dir, 'data');
const ms = (t: number) => `${Math.round(performance.now() - t)} ms`;

try {
  let t = performance.now();
  await generateLedger(join(dir, 'ledger.csv'), rows, { seed: 7, wallets: 20 });
  const imported = spawnSync(process.execPath, ['scripts/nps.mjs', 'import', join(dir, 'ledger.csv'), '--data-dir', dataDir], {
    cwd: root,
    encoding: 'utf8',
  });
  if (imported.status !== 0) throw new Error(`import failed:\n${imported.stderr}`);
  console.log(`ledger of ${rows.toLocaleString('en-US')} rows generated and imported in ${ms(t)}`);

  const server = spawn(process.execPath, ['scripts/nps.mjs', 'serve', '--ui', '--port', '0', '--data-dir', dataDir], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /browser mode\): (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    server.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  // The server is stopped whatever fails after it started (a missing Chromium included), not left running.
  let browser: Awaited<ReturnType<typeof chromium.launch>> | undefined;
  try {
    browser = await chromium.launch({
      executablePath: process.env.E2E_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu'],
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // Strings: this file is type-checked without the DOM library.
    // Locators, not string predicates: the window's CSP forbids the eval a string predicate needs.
    const settled = async () => {
      await page.locator('.vt-row').first().waitFor();
      await page.locator('.vt-placeholder').first().waitFor({ state: 'detached' });
    };
    const shown = () =>
      page.getByTestId('vt-scroll').evaluate((el) => {
        const idx = [...el.querySelectorAll('.vt-row')].map((r) => Number(r.getAttribute('aria-rowindex')) - 2);
        return `rows ${Math.min(...idx).toLocaleString('en-US')}–${Math.max(...idx).toLocaleString('en-US')} in the DOM (${idx.length}), scroll height ${el.scrollHeight.toLocaleString('en-US')} px`;
      });
    t = performance.now();
    await page.goto(url);
    await page
      .getByTestId('tx-count')
      .filter({ hasText: rows.toLocaleString('en-US') })
      .waitFor();
    await settled();
    console.log(`first page:   ${ms(t)}; ${await shown()}`);
    await page.getByRole('grid').getByRole('row').nth(1).click();
    t = performance.now();
    await page.keyboard.press('End');
    await page.locator('.vt-selected').waitFor();
    await settled();
    const last = await page.locator('.vt-selected').getAttribute('aria-rowindex');
    console.log(
      `End:          ${ms(t)}; selected row ${(Number(last) - 2).toLocaleString('en-US')} of ${rows.toLocaleString('en-US')}; ${await shown()}`,
    );
    t = performance.now();
    for (let i = 0; i < 30; i++) await page.mouse.wheel(0, -4000);
    await settled();
    console.log(`30 flings up: ${ms(t)}; ${await shown()}`);
    t = performance.now();
    await page.keyboard.press('Home');
    await settled();
    console.log(`Home:         ${ms(t)}; ${await shown()}`);
  } finally {
    await browser?.close();
    server.kill('SIGTERM');
  }
} finally {
  if (values.keep) console.log(`kept ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
