import { chromium, type Request } from '@playwright/test';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { chromiumLaunchOptions } from './support/chromium';
import { electronMode, root, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

// The browser-mode door only: Electron's window talks over IPC.
test.skip(electronMode, 'browser mode only');

test.describe.configure({ mode: 'serial' });

/** `npm run nps -- open --data-dir D`, as a user runs it: the fresh link it prints. */
async function freshLink(dataDir: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['scripts/nps.mjs', 'open', '--data-dir', dataDir], { cwd: root });
  return /NPS Reconcile \(browser mode\): (\S+)/.exec(stdout)![1]!;
}

test('a fresh link from npm run nps -- open settles within seconds (every request answered whole but the event stream, which stays open); opened again, it says it was used and how to get another', async ({
  nps,
}) => {
  const { dataDir } = await session(nps);
  const link = await freshLink(dataDir);
  const browser = await chromium.launch(chromiumLaunchOptions);
  try {
    const first = await browser.newPage();
    // Playwright's networkidle never comes to a window that follows the service's changes: its
    // event stream (GET /app/events) stays open by design. Every other request must end.
    const open = new Set<Request>();
    first.on('request', (r) => open.add(r));
    first.on('requestfinished', (r) => open.delete(r));
    first.on('requestfailed', (r) => open.delete(r));
    const started = Date.now();
    await first.goto(link, { timeout: 5_000 });
    await expect(first.getByRole('navigation', { name: 'Screens' })).toBeVisible({ timeout: 5_000 });
    const paths = () => [...open].map((r) => new URL(r.url()).pathname);
    await expect.poll(paths, { timeout: 5_000 }).toEqual(['/app/events']);
    expect(Date.now() - started).toBeLessThan(5_000);

    // The same link in another window (of another browser, or the same one): used.
    const second = await (await browser.newContext()).newPage();
    await second.goto(link, { waitUntil: 'networkidle', timeout: 5_000 });
    await expect(second.getByRole('heading', { level: 1, name: 'This link was already used' })).toBeVisible();
    await expect(second.getByText('This link was already used (a link opens one window, once).')).toBeVisible();
    await expect(second.getByText('npm run nps -- open', { exact: true })).toBeVisible();
    await expect(second.getByText(/unreachable|serve --ui/)).toHaveCount(0);
    await shot(second, 'browser-link-used');
  } finally {
    await browser.close();
  }
});

test('a link the service did not give (it restarted since) says so; another browser gets nothing, not even with the cookie', async ({
  nps,
}) => {
  const { page, link } = await session(nps);
  // The first browser traded the code and took it out of the address bar; it works.
  expect(new URL(page.url()).hash).toBe('');
  await expect(page.getByRole('navigation')).toBeVisible();

  const other = await chromium.launch(chromiumLaunchOptions);
  try {
    const intruder = await other.newPage();
    const origin = new URL(link!).origin;
    await intruder.goto(origin + '/');
    await expect(intruder.getByRole('heading', { level: 1, name: 'This window has no session' })).toBeVisible();
    await intruder.goto(`${origin}/#code=${'x'.repeat(43)}`);
    await intruder.reload();
    await expect(intruder.getByRole('heading', { level: 1, name: 'This link is from an earlier run of the service' })).toBeVisible();
    await shot(intruder, 'browser-link-other-run');
    // Nor can it call in by hand.
    const call = await intruder.evaluate(async () => {
      const rpc = await fetch('/app/rpc/keys-create', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ label: 'stolen', wallets: null }),
      });
      return rpc.status;
    });
    expect(call).toBe(401);
  } finally {
    await other.close();
  }

  // A tab of the very browser that holds the session cookie, but not the window's token (a page
  // another local server serves gets the cookie too): refused.
  const tab = await page.context().newPage();
  try {
    await tab.goto(new URL(link!).origin + '/');
    await expect(tab.getByRole('heading', { level: 1, name: 'This window has no session' })).toBeVisible();
    const withCookie = await tab.evaluate(async () => {
      const res = await fetch('/app/rpc/keys-create', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ label: 'stolen', wallets: null }),
      });
      return { status: res.status, msg: ((await res.json()) as { msg: string }).msg };
    });
    expect(withCookie).toEqual({ status: 401, msg: expect.stringMatching(/^session: a cookie alone opens no session/) });
  } finally {
    await tab.close();
  }

  // The first window still works after a reload (its tab keeps its token), and no key was made.
  await page.reload();
  await expect(page.getByRole('navigation')).toBeVisible();
  await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByText('stolen')).toHaveCount(0);
});
