import { chromium } from '@playwright/test';
import { chromiumLaunchOptions } from './support/chromium';
import { electronMode, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

// The browser-mode door only: Electron's window talks over IPC.
test.skip(electronMode, 'browser mode only');

test.describe.configure({ mode: 'serial' });

test('another browser gets nothing: neither the page alone nor the link already used opens a session', async ({ nps }) => {
  const { page, link } = await session(nps);
  // The first browser traded the code and took it out of the address bar; it works.
  expect(new URL(page.url()).hash).toBe('');
  await expect(page.getByRole('navigation')).toBeVisible();

  const other = await chromium.launch(chromiumLaunchOptions);
  try {
    const intruder = await other.newPage();
    const origin = new URL(link!).origin;
    for (const url of [origin + '/', link!]) {
      await intruder.goto(url);
      await expect(intruder.getByText(/this window has none; open the link/).first()).toBeVisible();
    }
    // Nor can it call in by hand, with or without the used code.
    const call = await intruder.evaluate(async () => {
      const session = await fetch('/app/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"code":"x"}',
      });
      const rpc = await fetch('/app/rpc/keys-create', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ label: 'stolen', wallets: null }),
      });
      return [session.status, rpc.status];
    });
    expect(call).toEqual([401, 401]);
    await shot(intruder, 'browser-door-refused');
  } finally {
    await other.close();
  }
  // The first browser still works, and no key was made.
  await page.reload();
  await expect(page.getByRole('navigation')).toBeVisible();
});
