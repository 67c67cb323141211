import AxeBuilder from '@axe-core/playwright';
import { type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { importLedger } from './support/ledger';
import { openScreen, root, samples, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

test.describe.configure({ mode: 'serial' });

const SIZES = [
  { name: '1024', width: 1024, height: 700 },
  { name: '1440', width: 1440, height: 900 },
] as const;
const THEMES = ['light', 'dark'] as const;
const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21aa'];

/** One view of a screen as axe saw it: the serious and critical rules it broke, with how many elements each. */
interface Finding {
  view: string;
  rule: string;
  impact: string;
  nodes: number;
  sample: string;
}

const shotsDir =
  process.env.NPS_UPDATE_SCREENSHOTS === '1'
    ? join(root, 'docs', 'screenshots', 'screens')
    : join(root, 'test-results', 'screenshots', 'screens');

const tabShotsDir = join(root, 'test-results', 'screenshots', 'screens', 'tabs');
const slugOf = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/** The screens as the navigation lists them (so a screen added later is checked too): its link's name and its slug. */
async function navScreens(page: Page): Promise<{ name: string; slug: string }[]> {
  const links = page.getByRole('navigation', { name: 'Screens' }).getByRole('link');
  const found: { name: string; slug: string }[] = [];
  for (const link of await links.all()) {
    const href = (await link.getAttribute('href')) ?? '';
    const name = ((await link.getAttribute('aria-label')) ?? (await link.innerText())).trim();
    found.push({ name, slug: href.replace(/^#\/?/, '').split('/')[0]! });
  }
  return found;
}

/** What only a command line says: a flag, or a command. The window names its screens, fields and buttons instead. */
const COMMAND_LINE = /(^|[\s(`"])--[a-z]|\bnps [a-z]+ [a-z]+|npm run/;

/** The view has its data: nothing is loading any more. */
async function settled(page: Page): Promise<void> {
  await expect(page.locator('.state-loading, .skeleton, [aria-busy="true"]')).toHaveCount(0, { timeout: 15_000 });
}

async function seriousFindings(page: Page, view: string): Promise<Finding[]> {
  const result = await new AxeBuilder({ page }).withTags(AXE_TAGS).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ view, rule: v.id, impact: v.impact!, nodes: v.nodes.length, sample: v.nodes[0]?.target.join(' ') ?? '' }));
}

/** Every tab of the screen (its first is already shown): each one is a view of its own. */
async function tabsOf(page: Page): Promise<string[]> {
  const tabs = page.getByRole('main').getByRole('tablist').first().getByRole('tab');
  return (await tabs.count()) ? (await tabs.allInnerTexts()).map((t) => t.replace(/\d[\d,]*$/, '').trim()) : [];
}

async function checkEveryScreen(page: Page, size: (typeof SIZES)[number], theme: (typeof THEMES)[number]): Promise<Finding[]> {
  await page.setViewportSize({ width: size.width, height: size.height });
  await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
  const findings: Finding[] = [];
  mkdirSync(shotsDir, { recursive: true });
  mkdirSync(tabShotsDir, { recursive: true });
  for (const screen of await navScreens(page)) {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: screen.name, exact: true }).click();
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await settled(page);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: join(shotsDir, `${screen.slug}-${size.name}-${theme}.png`), animations: 'disabled', caret: 'hide' });
    findings.push(...(await seriousFindings(page, screen.slug)));
    expect.soft(await page.getByRole('main').innerText(), `${screen.slug}: command-line text`).not.toMatch(COMMAND_LINE);
    const tabs = await tabsOf(page);
    for (const tab of tabs.slice(1)) {
      await page.getByRole('main').getByRole('tab', { name: tab }).first().click();
      await settled(page);
      // A tab's picture is for looking at, not for the docs: always into test-results.
      await page.screenshot({ path: join(tabShotsDir, `${screen.slug}-${slugOf(tab)}-${size.name}-${theme}.png`), animations: 'disabled' });
      findings.push(...(await seriousFindings(page, `${screen.slug} › ${tab}`)));
      expect.soft(await page.getByRole('main').innerText(), `${screen.slug} › ${tab}: command-line text`).not.toMatch(COMMAND_LINE);
    }
    // Nothing is cut off or pushed out: the screen itself never scrolls sideways (wide tables scroll inside their frame).
    const overflow = await page
      .getByRole('main')
      .evaluate((el: { scrollWidth: number; clientWidth: number }) => el.scrollWidth - el.clientWidth);
    expect.soft(overflow, `${screen.slug} at ${size.name} scrolls sideways by ${overflow}px`).toBeLessThanOrEqual(0);
  }
  return findings;
}

test('some data to look at: the sample ledger imported and the sample books reconciled', async ({ nps }) => {
  const { page } = await session(nps);
  await importLedger(page, join(samples, 'native-ledger.csv'), 30);
  await openScreen(page, 'Reconcile');
  await page.getByTestId('file-input').setInputFiles(join(samples, 'books', 'books-2026-01.csv'));
  await page.getByRole('button', { name: 'Run reconciliation' }).click();
  await expect(page.getByRole('table', { name: 'Reconciliation results' })).toBeVisible();
});

for (const size of SIZES) {
  for (const theme of THEMES) {
    test(`every screen at ${size.width}×${size.height}, ${theme}: no serious or critical axe finding`, async ({ nps }) => {
      test.setTimeout(420_000);
      const { page } = await session(nps);
      const findings = await checkEveryScreen(page, size, theme);
      const nodes = findings.reduce((n, f) => n + f.nodes, 0);
      console.log(`axe ${size.name} ${theme}: ${findings.length} serious/critical findings on ${nodes} elements`);
      for (const f of findings) console.log(`  ${f.view}: ${f.rule} (${f.impact}) ×${f.nodes} e.g. ${f.sample}`);
      expect(findings).toEqual([]);
    });
  }
}

test('the theme chosen in Settings wins over the system, is kept over a reload, and System follows the system again', async ({ nps }) => {
  const { page } = await session(nps);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
  const html = page.locator('html');
  const background = () => page.locator('body').evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).backgroundColor);
  await openScreen(page, 'Settings');
  const theme = page.getByRole('radiogroup', { name: 'Theme' });
  await expect(theme.getByRole('radio', { name: 'System' })).toHaveAttribute('aria-checked', 'true');
  const light = await background();

  await theme.getByRole('radio', { name: 'Dark' }).click();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  const dark = await background();
  expect(dark).not.toBe(light);
  await page.reload();
  await expect(html).toHaveAttribute('data-theme', 'dark');
  expect(await background()).toBe(dark);

  await openScreen(page, 'Settings');
  await theme.getByRole('radio', { name: 'Light' }).click();
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await background()).toBe(light);
  await theme.getByRole('radio', { name: 'System' }).click();
  await expect(html).not.toHaveAttribute('data-theme');
  expect(await background()).toBe(dark);
});
