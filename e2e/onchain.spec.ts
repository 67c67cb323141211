import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Address, Hash } from 'viem';
import { deployToken, sendToken, startAnvil, startProxy, type Anvil, type Proxy } from '../src/main/service/onchain/anvil.test-support';
import { chooseLedgerFile } from './support/ledger';
import { openScreen, session, shot } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

/*
 * The chain as the third witness, through the window, against a real node: anvil (from the npm
 * registry) on a free loopback port with Ethereum's chain id, behind a loopback proxy that takes a
 * provider-like URL with a key in its path. A wallet received a token the catalogue lacks and an
 * airdropped spam token; the import wizard fills the first from its contract and ignores the
 * second; the Ledger checks the records against the chain; Balances sets the chain's figure
 * beside the ledger's.
 */

test.describe.configure({ mode: 'serial' });
const SECRET = 'v3/e2e-secret-key-0123';
const JAN_15 = Date.UTC(2026, 0, 15, 12) / 1000;

let anvil: Anvil;
let other: Anvil;
let proxy: Proxy;
let acc: Address[];
let real: Address;
let spam: Address;
const hashes: Hash[] = [];

test.beforeAll(async () => {
  test.setTimeout(120_000);
  anvil = await startAnvil({ chainId: 1, timestamp: JAN_15 });
  other = await startAnvil({ chainId: 5 });
  proxy = await startProxy(anvil.url);
  acc = anvil.accounts;
  real = await deployToken(anvil, 'Useful Dollar', 'UDOL', '1000000', acc[0]!);
  spam = await deployToken(anvil, 'Visit claim.example to claim', 'CLAIM', '1000000000', acc[0]!);
  hashes.push(await sendToken(anvil, real, acc[0]!, acc[1]!, '12.5'));
  hashes.push(await sendToken(anvil, spam, acc[0]!, acc[1]!, '5000'));
  hashes.push(await sendToken(anvil, spam, acc[0]!, acc[1]!, '7000'));
  hashes.push(await sendToken(anvil, real, acc[1]!, acc[2]!, '2.25'));
  // ETH's 12 confirmations.
  await anvil.test.mine({ blocks: 12 });
});
test.afterAll(async () => {
  await proxy?.close();
  await other?.stop();
  await anvil?.stop();
});

test('Catalogue: a node per chain, its chain id checked, kept masked, what goes to it said beside it', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Catalogue');
  const eth = page.getByRole('row').filter({ has: page.getByRole('button', { name: 'Node of ETH' }) });
  await eth.getByRole('button', { name: 'Node of ETH' }).click();
  const dialog = page.getByRole('dialog', { name: 'Node for ETH' });
  await expect(dialog.getByTestId('node-privacy')).toContainText("What goes to this node: the hashes of ETH's ledger records");
  await dialog.getByLabel('Node URL').fill(other.url);
  await dialog.getByRole('button', { name: 'Check and save' }).click();
  await expect(dialog.getByRole('alert')).toHaveText(`url: the node at ${other.url} is on chain 5, not ETH's 1: give a node of Ethereum`);
  await dialog.getByLabel('Node URL').fill(`${proxy.url}/${SECRET}`);
  // The key in the URL is not shown as it is typed, unless asked for.
  const urlField = dialog.getByLabel('Node URL');
  await expect(urlField).toHaveCSS('-webkit-text-security', 'disc');
  await shot(page, 'catalogue-node');
  await dialog.getByRole('button', { name: 'Show URL' }).click();
  await expect(urlField).toHaveCSS('-webkit-text-security', 'none');
  await dialog.getByRole('button', { name: 'Hide URL' }).click();
  await expect(urlField).toHaveCSS('-webkit-text-security', 'disc');
  await dialog.getByRole('button', { name: 'Check and save' }).click();
  await expect(dialog).toBeHidden();
  await expect(eth).toContainText(`${proxy.url}/…`);
  await expect(page.locator('body')).not.toContainText('secret');
});

test('the import wizard fills an unknown token from its contract, and skips and counts an ignored one', async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  const head =
    '"Txhash","Blockno","UnixTimestamp","DateTime (UTC)","From","To","TokenValue","USDValueDayOfTx","ContractAddress","TokenName","TokenSymbol"';
  const row = (h: Hash, from: Address, to: Address, value: string, contract: Address, name: string, symbol: string) =>
    [h, '5', String(JAN_15), '2026-01-15 12:00:00', from.toLowerCase(), to.toLowerCase(), value, '$0', contract.toLowerCase(), name, symbol]
      .map((c) => `"${c}"`)
      .join(',');
  const file = join(dataDir, 'erc20.csv');
  writeFileSync(
    file,
    [
      head,
      row(hashes[0]!, acc[0]!, acc[1]!, '12.5', real, 'Useful Dollar', 'UDOL'),
      row(hashes[1]!, acc[0]!, acc[1]!, '5000', spam, 'Visit claim.example to claim', 'CLAIM'),
      row(hashes[2]!, acc[0]!, acc[1]!, '7000', spam, 'Visit claim.example to claim', 'CLAIM'),
      row(hashes[3]!, acc[1]!, acc[2]!, '2.25', real, 'Useful Dollar', 'UDOL'),
    ].join('\n') + '\n',
  );
  await chooseLedgerFile(page, file);
  await page.getByLabel('Chain of the file').selectOption('ETH');
  await page.getByLabel('Wallet for every row').selectOption('named');
  await page.getByLabel('Name of the new wallet').fill('Treasury');
  await expect(page.getByTestId('unknown-tokens-title')).toHaveText('4 rows of 2 unknown tokens in the first rows');

  // Read from the contract through ETH's node, for the user to check: nothing to type.
  const udol = page.getByRole('listitem', { name: 'Unknown token UDOL' });
  await expect(udol.getByTestId('from-node')).toHaveText(
    "Read from ETH's node: symbol UDOL, decimals 18, name Useful Dollar. Check them, then add.",
  );
  await expect(udol.getByLabel('Symbol')).toHaveValue('UDOL');
  await expect(udol.getByLabel('Decimal')).toHaveValue('18');
  const claim = page.getByRole('listitem', { name: 'Unknown token CLAIM' });
  await expect(claim.getByLabel('Decimal')).toHaveValue('18');
  await shot(page, 'ledger-unknown-tokens-from-node');

  // The spam token ignored: its rows are skipped and counted, not rejected.
  await claim.getByRole('button', { name: 'Ignore (spam)' }).click();
  await expect(page.getByTestId('ignored-tokens-title')).toHaveText('2 rows of 1 ignored token skipped in the first rows');
  await expect(page.getByTestId('unknown-tokens-title')).toHaveText('2 rows of 1 unknown token in the first rows');
  await udol.getByRole('button', { name: 'Add to catalogue' }).click();
  await expect(page.getByTestId('unknown-tokens-title')).toBeHidden();

  await page.getByRole('button', { name: 'Preview the import' }).click();
  await expect(page.getByTestId('preview-message')).toContainText('2 would be added');
  await expect(page.getByTestId('preview-message')).toContainText('2 rows of 1 ignored token skipped (CLAIM');
  await page.getByRole('button', { name: 'Import 2 rows' }).click();
  await expect(page.getByTestId('import-result')).toContainText('2 added');
  await expect(page.getByTestId('import-counts')).toContainText('ignored (spam)');
  await expect(page.getByTestId('ignored-tokens-title')).toHaveText('2 rows of 1 ignored token skipped');
  await shot(page, 'ledger-import-ignored-tokens');
});

test('Ledger: Check against the chain, in the background, with its progress and findings', async ({ nps }) => {
  const { page } = await session(nps);
  await page.getByRole('button', { name: 'Show the transactions' }).click();
  await expect(page.getByTestId('tx-count')).toHaveText('2 transactions');
  await page.getByRole('button', { name: 'Check against the chain' }).click();
  const dialog = page.getByRole('dialog', { name: 'Check against the chain' });
  await expect(dialog.getByTestId('chain-check-nodes')).toHaveText(`Nodes: ETH (${proxy.url}/…).`);
  await dialog.getByRole('button', { name: 'Start the check' }).click();
  await expect(dialog.getByTestId('chain-check-state')).toContainText('Checked 2 records');
  await expect(dialog.getByRole('button', { name: /Agree/ })).toContainText('2');
  await expect(dialog).toContainText('Every record checked agrees with the chain.');
  await shot(page, 'ledger-chain-check');
  await dialog.locator('.dialog-footer').getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
});

test('the check dialog, left open, follows a check the command line runs, with a note', async ({ nps }) => {
  const { page } = await session(nps);
  // The transactions the test before showed, in the file's one window.
  await expect(page.getByTestId('tx-count')).toHaveText('2 transactions');
  await page.getByRole('button', { name: 'Check against the chain' }).click();
  const dialog = page.getByRole('dialog', { name: 'Check against the chain' });
  await expect(dialog.getByRole('button', { name: 'Start the check' })).toBeVisible();
  await expect(dialog.getByTestId('chain-check')).toHaveCount(0);
  expect(await nps.run(['onchain', 'check'])).toSucceed();
  await expect(
    page.getByTestId('change-note').filter({ hasText: 'A check against the chain of 2 records finished (2 agree, 0 differ' }),
  ).toHaveCount(1);
  await expect(dialog.getByTestId('chain-check-state')).toContainText('Checked 2 records');
  await expect(dialog.getByRole('button', { name: /Agree/ })).toContainText('2');
  await shot(page, 'ledger-chain-check-by-others');
  await dialog.locator('.dialog-footer').getByRole('button', { name: 'Close' }).click();
});

test('Balances: the chain’s closing figure beside the ledger’s', async ({ nps }) => {
  const { page } = await session(nps);
  await openScreen(page, 'Balances');
  await page.getByLabel('From (UTC day)').fill('2026-01-01');
  await page.getByLabel('To (UTC day, inclusive)').fill('2026-01-31');
  await page.getByRole('button', { name: 'Show', exact: true }).click();
  const table = page.getByRole('table', { name: 'Balances' });
  await expect(table).toContainText('On chain (closing)');
  const row = table.getByRole('row').filter({ hasText: 'ETH_UDOL' });
  await expect(row).toContainText('10.25');
  await expect(page.getByTestId('chain-closing-note')).toContainText('read from the chain');
  // The wallet's address holds the coin the ledger has no record of (anvil funds it): said, and an exception when asked.
  await expect(page.getByTestId('chain-only')).toContainText('ETH (Treasury)');
  await page.getByRole('button', { name: 'Open exceptions for the 1 difference' }).click();
  await expect(page.getByTestId('chain-closing-note')).toContainText('1 balance exception opened or updated in the Tickets queue.');
  await shot(page, 'balances-on-chain');
  // At 1024 px the ledger's Closing stays at the table's right edge, the chain's figure just before it.
  await page.setViewportSize({ width: 1024, height: 700 });
  const headers = await table.getByRole('columnheader').allTextContents();
  expect(headers.slice(-2)).toEqual(['On chain (closing)', 'Closing']);
  await expect(row.getByRole('cell').last()).toBeInViewport();
  await shot(page, 'balances-on-chain-1024');
  await page.setViewportSize({ width: 1280, height: 800 });
});
