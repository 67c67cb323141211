import { type Page } from '@playwright/test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chooseLedgerFile } from './support/ledger';
import { root, shot, session } from './support/session';
import { expect, test } from 'nps-reconcile/testing';

test.describe.configure({ mode: 'serial' });
const exports = join(root, 'test', 'fixtures', 'exports');
const WALLET = '0xf98c96b5d10faafc2324847c82305bd5fd7e5ad3';

/** The header and the first `rows` data rows of a real export, as a file of its own. */
function headOf(fixture: string, rows: number, dir: string, extra: string[] = []): string {
  const lines = readFileSync(join(exports, fixture), 'utf8').split(/\r?\n/);
  const file = join(dir, fixture);
  writeFileSync(file, [...lines.slice(0, rows + 1), ...extra].join('\r\n') + '\r\n');
  return file;
}

/** The wallet of the native ledgers written below. */
const LEDGER_WALLET = '7b9e4a10-2c3d-4e5f-8a6b-0c1d2e3f4a5b';

/** A small ledger file written for a test: its lines (a header, then rows) with LF line ends. */
function ledgerFile(dir: string, name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** What only a command line says: a flag, or a command. */
const COMMAND_LINE = /(^|[\s(`"])--[a-z]|\bnps [a-z]+ [a-z]+|npm run/;

const preview = (page: Page) => page.getByRole('button', { name: 'Preview the import' });
const firstRows = (page: Page) => page.getByRole('table', { name: 'First rows as read' });

test('an Etherscan transactions export asks for its chain, shows its rows as read, and imports', async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  const file = headOf('etherscan-0xf98c-txlist.csv', 5, dataDir);
  await chooseLedgerFile(page, file);
  await expect(page.getByTestId('detected-preset')).toContainText('Etherscan-family transactions');

  // Value_IN(ETH): four chains have that coin, so the file is asked about, not guessed.
  const questions = page.getByTestId('questions');
  await expect(questions).toContainText('Which chain was this file exported from?');
  await expect(questions).toContainText("The file's values are in ETH");
  const chain = page.getByLabel('Chain of the file');
  const offered = await chain.locator('option').evaluateAll((options) => options.map((o) => o.getAttribute('value')));
  expect(offered).toEqual(expect.arrayContaining(['ETH', 'ARBITRUM_ETH', 'OPT_ETH', 'BASE_ETH']));
  await expect(preview(page)).toBeDisabled();
  await expect(page.getByTestId('blocked-reason')).toContainText('Answer the questions above');
  await shot(page, 'ledger-choices-chain-question');

  await chain.selectOption('ETH');
  await expect(page.getByLabel('Chain of the file')).toBeHidden();
  await expect(questions).toContainText('Which wallet are these rows of?');
  // The file has no wallet_id column: the wallet is to be chosen, never "from the file".
  const walletSelect = page.getByLabel('Wallet for every row');
  await expect(walletSelect).toHaveValue('');
  await expect(walletSelect.locator('option:checked')).toHaveText('Choose a wallet…');
  await expect(walletSelect.locator('option', { hasText: 'From the file' })).toHaveCount(0);
  // Named: its export's address becomes this wallet's, and the ERC-20 export of the same address goes there below.
  await walletSelect.selectOption('named');
  await page.getByLabel('Name of the new wallet').fill('Treasury 0xf98c');
  await expect(questions).toBeHidden();

  // What was decided without asking, each part changeable; the first rows as they will be stored.
  await expect(page.getByLabel('Read as chain')).toHaveValue('ETH');
  await expect(page.getByLabel('Wallet address')).toHaveValue(WALLET);
  await expect(page.getByTestId('read-as')).toContainText('Unix timestamps, UTC');
  const rows = firstRows(page);
  await expect(rows.getByRole('row')).toHaveCount(6);
  const second = rows.getByRole('row').nth(2);
  await expect(second).toContainText('Deposit');
  await expect(second).toContainText('5.061643');
  await expect(second).toContainText('2017-09-09T12:21:57Z');
  await expect(second).toContainText('0x0a11ffa6…40503e');
  await expect(second.getByRole('cell').last()).toHaveAttribute(
    'title',
    '0x0a11ffa605919dd2cc1524a0fc3de9b32a78678ccdae8aa91439c6353440503e',
  );
  await expect(rows.getByRole('row').nth(3)).toContainText('Withdrawal');
  // A failure may be in either column: Status, or the error text of ErrCode.
  await expect(page.getByLabel('Column for status')).toHaveValue('Status');
  await expect(page.getByLabel('Column for error')).toHaveValue('ErrCode');
  await shot(page, 'ledger-choices-chain-answered');

  await preview(page).click();
  await expect(page.getByTestId('preview-message')).toContainText('5 would be added');
  await expect(page.getByTestId('read-as-summary')).toContainText('ETH');
  await page.getByRole('button', { name: 'Import 5 rows' }).click();
  await expect(page.getByTestId('import-result')).toContainText('Import finished');
  await expect(page.getByTestId('import-result')).toContainText('5 added');
  await expect(page.getByTestId('import-counts')).toContainText('5added');
  await expect(page.getByTestId('read-as-summary')).toContainText(WALLET);
  await shot(page, 'ledger-choices-etherscan-report');
});

test("a contract's export with its deployer on every row: both addresses are offered, the one chosen reads the direction", async ({
  nps,
}) => {
  const { page } = await session(nps);
  const contract = '0x023c66b7e13d30a3c46aa433fd2829763d5817c5';
  const deployer = '0xde910777c787903f78c89e7a0bf7f4c435cbb1fe';
  await chooseLedgerFile(page, join(exports, 'etherscan-0x023c-txlist-transaction-hash-header.csv'));
  await page.getByLabel('Chain of the file').selectOption('ETH');
  await page.getByLabel('Wallet for every row').selectOption('new');

  // Every value is 0 (calls that paid a fee): only the wallet's address says which way each went.
  const questions = page.getByTestId('questions');
  await expect(page.getByLabel('Chain of the file')).toBeHidden();
  await expect(questions).toContainText('Which address was this file exported for?');
  await expect(questions).toContainText('2 addresses are on every one of its first rows');
  await expect(page.getByRole('radio', { name: deployer })).not.toBeChecked();
  await expect(preview(page)).toBeDisabled();
  await shot(page, 'ledger-choices-wallet-address-offered');

  await page.getByRole('radio', { name: contract }).check();
  await expect(questions).toBeHidden();
  await expect(page.getByLabel('Wallet address')).toHaveValue(contract);
  // The first row made the contract (To empty): it went to the contract, as every call after it.
  await expect(firstRows(page).getByRole('row').nth(1)).toContainText('0x5dc6c4ba…1486f7');
  await expect(firstRows(page).getByRole('row').filter({ hasText: 'Withdrawal' })).toHaveCount(0);

  await preview(page).click();
  await expect(page.getByTestId('preview-message')).toContainText('23 would be added');
  await page.getByRole('button', { name: 'Import 23 rows' }).click();
  await expect(page.getByTestId('import-counts')).toContainText('23added');
  await expect(page.getByTestId('read-as-summary')).toContainText(contract);
});

test("a token page's export names neither token nor chain: the token chosen answers the chain question too", async ({ nps }) => {
  const { page } = await session(nps);
  await chooseLedgerFile(page, join(exports, 'derived-token-page-etherscan-0x003dc-usdc.csv'));
  await expect(page.getByTestId('detected-preset')).toContainText("transfers from a token's page");
  const questions = page.getByTestId('questions');
  await expect(questions).toContainText('Which chain was this file exported from?');
  await expect(questions).toContainText('Which token are the rows of?');
  // The tokens of every chain the file could be from; USDC of Ethereum is on Ethereum.
  await page.getByLabel('Token of every row').selectOption('ETH_USDC');
  await expect(page.getByLabel('Chain of the file')).toBeHidden();
  await expect(page.getByLabel('Read as chain')).toHaveValue('ETH');
  // The token chosen is what every row is read as: said on the "Read as" line, in the preview and in the report.
  await expect(page.getByTestId('read-as')).toContainText(/token\s*ETH_USDC/);
  await page.getByLabel('Wallet for every row').selectOption('named');
  await page.getByLabel('Name of the new wallet').fill('Treasury 0x003dc');
  await expect(questions).toBeHidden();
  await expect(page.getByLabel('Wallet address')).toHaveValue('0x003dc32fe920a4aaeed12dc87e145f030aa753f3');
  // 4,506.611832 in the file: a thousands separator, read as such.
  await expect(firstRows(page)).toContainText('4506.611832');
  await shot(page, 'ledger-choices-token-page');
  await preview(page).click();
  await expect(page.getByTestId('read-as-summary')).toContainText(/token\s*ETH_USDC/);
  await page.getByRole('button', { name: 'Import 21 rows' }).click();
  await expect(page.getByTestId('import-result')).toContainText('21 added');
  await expect(page.getByTestId('read-as-summary')).toContainText(/token\s*ETH_USDC/);
});

test('amounts like 1,234 only: the decimal separator is asked, and the first rows follow the answer', async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  const file = ledgerFile(dataDir, 'eu-ledger.csv', [
    'transaction_id;wallet_id;type;status;amount;chain_id;token_id;hash;created_at',
    `5e0c1b8a-6c1e-4d3f-9a7b-1d2e3f4a5b61;${LEDGER_WALLET};Deposit;Completed;1,234;TRON;TRON_USDT;${'a1'.repeat(32)};1767600000000`,
    `5e0c1b8a-6c1e-4d3f-9a7b-1d2e3f4a5b62;${LEDGER_WALLET};Withdrawal;Completed;2,500;TRON;TRON_USDT;${'b2'.repeat(32)};1767600060000`,
  ]);
  await chooseLedgerFile(page, file);
  const questions = page.getByTestId('questions');
  await expect(questions).toContainText('Which decimal separator do the amounts use?');
  await expect(questions).toContainText('"1,234"');
  await expect(preview(page)).toBeDisabled();
  await shot(page, 'ledger-choices-decimal-question');

  await page.getByRole('radio', { name: '1.234,56 (comma)' }).check();
  await expect(questions).toBeHidden();
  const first = firstRows(page).getByRole('row').nth(1);
  await expect(first).toContainText('1.234');
  await expect(first).toContainText('file: 1,234');
  await expect(page.getByLabel('Decimal separator')).toHaveValue(',');
  await shot(page, 'ledger-choices-decimal-answered');

  // Changed on the "Read as" line: the rows are read again with the other separator.
  await page.getByLabel('Decimal separator').selectOption('.');
  await expect(first.getByRole('cell').nth(3)).toContainText('1234');
  await page.getByLabel('Decimal separator').selectOption(',');
  await expect(first.getByRole('cell').nth(3)).toContainText('1.234');

  await preview(page).click();
  await page.getByRole('button', { name: 'Import 2 rows' }).click();
  await expect(page.getByTestId('import-result')).toContainText('2 added');
  await expect(page.getByTestId('read-as-summary')).toContainText('decimal comma');
});

test('amounts written with a point and with a comma in one file: the separator is asked, and the other amounts are rejected, never misread', async ({
  nps,
}) => {
  const { page, dataDir } = await session(nps);
  const file = ledgerFile(dataDir, 'mixed-separators.csv', [
    'transaction_id,wallet_id,type,status,amount,chain_id,token_id,hash,created_at',
    `7c0c1b8a-6c1e-4d3f-9a7b-1d2e3f4a5b61,${LEDGER_WALLET},Deposit,Completed,0.5,TRON,TRON_USDT,${'c1'.repeat(32)},1767600000000`,
    `7c0c1b8a-6c1e-4d3f-9a7b-1d2e3f4a5b62,${LEDGER_WALLET},Deposit,Completed,"1,5",TRON,TRON_USDT,${'c2'.repeat(32)},1767600060000`,
  ]);
  await chooseLedgerFile(page, file);
  const questions = page.getByTestId('questions');
  await expect(questions).toContainText('disagree on the decimal separator');
  await expect(page.getByTestId('detect-problem')).toBeHidden();
  await expect(preview(page)).toBeDisabled();
  await shot(page, 'ledger-choices-decimal-conflict');

  await page.getByRole('radio', { name: '1,234.56 (point)' }).check();
  await expect(questions).toBeHidden();
  await expect(firstRows(page).getByRole('row').nth(1)).toContainText('0.5');
  await expect(firstRows(page).getByRole('row').nth(2)).toContainText('Rejected');
  await expect(firstRows(page).getByRole('row').nth(2)).toContainText('"1,5"');
});

test("dates like 05/03/2022: the question says what each order makes of the file's date", async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  const file = ledgerFile(dataDir, 'dates-ledger.csv', [
    'transaction_id,wallet_id,type,status,amount,chain_id,token_id,created_at',
    `6a0c1b8a-6c1e-4d3f-9a7b-1d2e3f4a5b61,${LEDGER_WALLET},Deposit,Completed,10,TRON,TRON_USDT,05/03/2022 10:21`,
    `6a0c1b8a-6c1e-4d3f-9a7b-1d2e3f4a5b62,${LEDGER_WALLET},Deposit,Completed,20,TRON,TRON_USDT,07/04/2022 11:00`,
  ]);
  await chooseLedgerFile(page, file);
  const questions = page.getByTestId('questions');
  await expect(questions).toContainText('In which order are day and month written?');
  await expect(page.getByRole('radio', { name: 'day first: 05/03/2022 → 5 March 2022' })).toBeVisible();
  await expect(page.getByRole('radio', { name: 'month first: 05/03/2022 → 3 May 2022' })).toBeVisible();
  await shot(page, 'ledger-choices-date-order-question');
  await page.getByRole('radio', { name: 'day first: 05/03/2022 → 5 March 2022' }).check();
  await expect(questions).toBeHidden();
  // The time read beside the file's own text, so the order can be checked against the file.
  const first = firstRows(page).getByRole('row').nth(1);
  await expect(first).toContainText('2022-03-05T10:21:00Z');
  await expect(first).toContainText('file: 05/03/2022 10:21');
  await shot(page, 'ledger-choices-date-order-answered');
  // Here the file's own wallet_id column gives the wallet.
  await expect(page.getByLabel('Wallet for every row').locator('option:checked')).toHaveText('From the file');
});

test('an ERC-20 export with an unknown contract: listed, added with its decimal, then its rows import', async ({ nps }) => {
  const { page, dataDir } = await session(nps);
  // XNN (real row of the export, unknown to the catalogue) and a USDT transfer (known by its contract).
  const usdt = `"0x${'c3'.repeat(32)}","4500000","1510000000","2017-11-06 20:26:40","${WALLET}","0x${'11'.repeat(20)}","12.5","$12.50","0xdac17f958d2ee523a2206206994597c13d831ec7","Tether USD","USDT"`;
  const file = headOf('etherscan-0xf98c-erc20.csv', 1, dataDir, [usdt]);
  await chooseLedgerFile(page, file);
  await expect(page.getByTestId('detected-preset')).toContainText('token transfers');
  await page.getByLabel('Chain of the file').selectOption('ETH');
  // The address's wallet: its transactions export was imported there above.
  await page.getByLabel('Wallet for every row').selectOption({ label: 'Treasury 0xf98c' });

  await expect(page.getByTestId('unknown-tokens-title')).toHaveText('1 row of 1 unknown token in the first rows');
  const token = page.getByRole('listitem', { name: 'Unknown token XNN' });
  await expect(token).toContainText('XENON');
  await expect(token).toContainText('0xab95e915c123fded5bdfb6325e35ef5515f1ea69');
  await expect(token.getByLabel('Symbol')).toHaveValue('XNN');
  // The file shows a lower bound only: the decimal is asked, never filled in, and one below the bound is refused.
  await expect(token.getByLabel('Decimal')).toHaveValue('');
  await expect(token).toContainText("The file's first rows have amounts of it with up to 17 decimal places, so at least 17");
  await expect(token.getByRole('button', { name: 'Add to catalogue' })).toBeDisabled();
  await token.getByLabel('Decimal').fill('16');
  await expect(token.getByTestId('decimal-problem')).toHaveText(
    'Decimal: at least 17: the file has an amount of it with 17 decimal places.',
  );
  await expect(token.getByRole('button', { name: 'Add to catalogue' })).toBeDisabled();
  await token.getByLabel('Decimal').fill('18');
  await expect(token.getByTestId('decimal-problem')).toHaveCount(0);
  await expect(token.getByLabel('Token ID')).toHaveAttribute('placeholder', 'ETH_XNN');
  // The row is rejected in place, with its column, value and reason.
  const rejected = firstRows(page).getByRole('row').nth(1);
  await expect(rejected).toContainText('Rejected ContractAddress "0xab95e915c123fded5bdfb6325e35ef5515f1ea69": unknown token');
  await expect(firstRows(page).getByRole('row').nth(2)).toContainText('ETH_USDT');
  // The way out named as the window has it, not as a command.
  await expect(rejected).toContainText("add it to the catalogue (Add to catalogue, in the import's list of unknown tokens)");
  await expect(page.getByRole('main')).not.toContainText(COMMAND_LINE);
  await shot(page, 'ledger-choices-unknown-token');

  // A refusal stands only while its cause does: a token ID the catalogue has is refused, and editing it takes the message away.
  await token.getByLabel('Token ID').fill('ETH_USDT');
  await token.getByRole('button', { name: 'Add to catalogue' }).click();
  await expect(token.getByRole('alert')).toContainText('ETH_USDT');
  await token.getByLabel('Token ID').fill('');
  await expect(token.getByRole('alert')).toHaveCount(0);

  await token.getByLabel('Decimal').fill('18');
  await token.getByRole('button', { name: 'Add to catalogue' }).click();
  await expect(page.getByTestId('unknown-tokens-title')).toBeHidden();
  await expect(page.getByText('Added to the catalogue:')).toContainText('ETH_XNN (decimal 18)');
  await expect(rejected).toContainText('319.22562200498686051');
  await expect(rejected).toContainText('ETH_XNN');

  await preview(page).click();
  await expect(page.getByTestId('preview-message')).toContainText('2 would be added');
  await page.getByRole('button', { name: 'Import 2 rows' }).click();
  await expect(page.getByTestId('import-result')).toContainText('2 added');
  await shot(page, 'ledger-choices-token-report');
});

test('unknown tokens on the Preview step: each asked its decimal, IDs told apart, all added at once, and the preview read again before Import', async ({
  nps,
}) => {
  const { page, dataDir } = await session(nps);
  const wallet = '0x003dc32fe920a4aaeed12dc87e145f030aa753f3';
  // ANJ (whole amounts in the file: decimal hint 0), two Uniswap V2 pairs (both "UNI-V2", 18 places) and a known USDT transfer.
  const lines = readFileSync(join(exports, 'etherscan-0x003dc-erc20.csv'), 'utf8').split(/\r?\n/);
  // The first transfer of each token: the contract in ContractAddress, before TokenName.
  const pick = (contract: string, name: string) => lines.find((l) => l.includes(`"${contract}","${name}"`))!;
  const usdt = `"0x${'d4'.repeat(32)}","11100000","1602400000","2020-10-11 07:06:40","${wallet}","0x${'22'.repeat(20)}","25.5","$25.50","0xdac17f958d2ee523a2206206994597c13d831ec7","Tether USD","USDT"`;
  const file = join(dataDir, 'unknown-tokens-erc20.csv');
  writeFileSync(
    file,
    [
      lines[0],
      pick('0xcd62b1c403fa761baadfc74c525ce2b51780b184', 'Aragon Network Juror'),
      pick('0xc2adda861f89bbb333c90c492cb837741916a225', 'Uniswap V2'),
      pick('0x2fdbadf3c4d5a8666bc06645b8358ab803996e28', 'Uniswap V2'),
      usdt,
    ].join('\r\n') + '\r\n',
  );
  await chooseLedgerFile(page, file);
  await page.getByLabel('Chain of the file').selectOption('ETH');
  await page.getByLabel('Wallet for every row').selectOption({ label: 'Treasury 0x003dc' });
  await expect(page.getByTestId('questions')).toBeHidden();
  await preview(page).click();
  await expect(page.getByTestId('preview-message')).toContainText('1 would be added');
  await expect(page.getByRole('button', { name: 'Import 1 row' })).toBeEnabled();

  const list = page.getByRole('region', { name: 'Unknown tokens' });
  await expect(page.getByTestId('unknown-tokens-title')).toHaveText('3 rows of 3 unknown tokens');
  const anj = list.getByRole('listitem', { name: 'Unknown token ANJ' });
  const pairs = list.getByRole('listitem', { name: 'Unknown token UNI-V2' });
  await expect(pairs).toHaveCount(2);
  // No decimal is invented: every one is empty, with what the file says of it.
  for (const item of [anj, pairs.first(), pairs.last()]) await expect(item.getByLabel('Decimal')).toHaveValue('');
  await expect(anj).toContainText('The file shows only whole amounts of it, which says nothing of its decimal');
  await expect(pairs.first()).toContainText('The file has amounts of it with up to 18 decimal places, so at least 18');
  // The two pairs share a symbol: each ID ends with its contract's last digits; ANJ keeps CHAIN_SYMBOL.
  await expect(anj.getByLabel('Token ID')).toHaveAttribute('placeholder', 'ETH_ANJ');
  await expect(pairs.first().getByLabel('Token ID')).toHaveAttribute('placeholder', 'ETH_UNI_V2_A225');
  await expect(pairs.last().getByLabel('Token ID')).toHaveAttribute('placeholder', 'ETH_UNI_V2_6E28');

  const addAll = list.getByRole('button', { name: /^Add (all|\d)/ });
  await expect(addAll).toBeDisabled();
  await expect(page.getByTestId('unknown-tokens-ready')).toHaveText('3 tokens still need a decimal (or a symbol).');
  await anj.getByLabel('Decimal').fill('18');
  await pairs.first().getByLabel('Decimal').fill('17');
  await expect(pairs.first().getByTestId('decimal-problem')).toContainText('at least 18');
  await expect(addAll).toHaveText('Add 1 token with a decimal');
  await pairs.first().getByLabel('Decimal').fill('18');
  await pairs.last().getByLabel('Decimal').fill('18');
  await expect(addAll).toHaveText('Add all 3 tokens');
  await shot(page, 'ledger-choices-unknown-tokens-all');
  await addAll.click();

  // The preview is made again with them: its counts, and Import, only once it is in.
  await expect(page.getByTestId('preview-message')).toContainText('4 would be added');
  await expect(page.getByTestId('preview-tokens-added')).toContainText('ETH_ANJ, ETH_UNI_V2_A225, ETH_UNI_V2_6E28');
  await expect(page.getByTestId('preview-tokens-added')).toContainText('The figures above read the file with them');
  await expect(page.getByTestId('unknown-tokens-title')).toBeHidden();
  await shot(page, 'ledger-choices-unknown-tokens-added');
  await page.getByRole('button', { name: 'Import 4 rows' }).click();
  await expect(page.getByTestId('import-result')).toContainText('4 records written');
  await expect(page.getByTestId('import-counts')).toContainText('4added');
});

test('a Mantlescan export on a store without its chain: the chain is added in the wizard, and the records land on it', async ({ nps }) => {
  const { page } = await session(nps);
  await chooseLedgerFile(page, join(exports, 'mantlescan-anonymized-txlist.csv'));
  await expect(page.getByTestId('detected-preset')).toContainText('Etherscan-family transactions');

  // Value_IN(MNT): no chain of the catalogue has that coin; what the file says of the chain is filled in.
  const questions = page.getByTestId('questions');
  await expect(questions).toContainText('Which chain was this file exported from?');
  await expect(questions).toContainText('No chain in the catalogue has the coin MNT');
  const form = page.getByRole('group', { name: 'Add chain' });
  await expect(form.getByLabel(/chain_id$/)).toHaveValue('MNT');
  await expect(form.getByLabel(/chain_identifier$/)).toHaveValue('ETH');
  await expect(form.getByLabel(/native_symbol$/)).toHaveValue('MNT');
  await expect(form.getByLabel(/native_decimal$/)).toHaveValue('18');
  await expect(form.getByLabel(/confirming_threshold$/)).toHaveValue('12');
  // The chain needs a name before it can be added.
  await expect(form.getByRole('button', { name: 'Add chain' })).toBeDisabled();
  await form.getByLabel(/chain_id$/).fill('MANTLE');
  await form.getByLabel(/^Name/).fill('Mantle');
  // A refusal names the field and stands only until that field is edited.
  await form.getByLabel(/explorer_tx_url$/).fill('https://mantlescan.xyz/tx/');
  await form.getByRole('button', { name: 'Add chain' }).click();
  await expect(form.getByRole('alert')).toContainText('explorer_tx_url: must be an https URL containing {hash}');
  await form.getByLabel(/explorer_tx_url$/).fill('https://mantlescan.xyz/tx/{hash}');
  await expect(form.getByRole('alert')).toHaveCount(0);
  await form.getByLabel(/explorer_address_url$/).fill('https://mantlescan.xyz/address/{address}');
  await shot(page, 'ledger-choices-add-chain');
  await page.setViewportSize({ width: 1024, height: 800 });
  await shot(page, 'ledger-choices-add-chain-1024');
  await page.setViewportSize({ width: 1280, height: 800 });

  await form.getByRole('button', { name: 'Add chain' }).click();
  // Read again: the file's coin is MANTLE's, so the chain is the one added, without asking.
  await expect(page.getByTestId('added-chains')).toContainText('MANTLE (Mantle)');
  await expect(page.getByTestId('added-chains')).toContainText('the file is read on MANTLE');
  await expect(page.getByLabel('Read as chain')).toHaveValue('MANTLE');
  await expect(questions).toContainText('Which wallet are these rows of?');
  await page.getByLabel('Wallet for every row').selectOption('new');
  await expect(questions).toBeHidden();
  await expect(firstRows(page).getByRole('row')).toHaveCount(5);
  await expect(firstRows(page)).toContainText('MANTLE');
  await shot(page, 'ledger-choices-add-chain-answered');

  await preview(page).click();
  await expect(page.getByTestId('preview-message')).toContainText('4 would be added');
  await page.getByRole('button', { name: 'Import 4 rows' }).click();
  await expect(page.getByTestId('import-result')).toContainText('4 added');
  await expect(page.getByTestId('read-as-summary')).toContainText('MANTLE');

  // The records are on the chain added, with its coin and its explorer link.
  const hash = '0xabc0000000000000000000000000000000000000000000000000000000000004';
  await page.getByRole('button', { name: 'Show the transactions' }).click();
  await page.getByLabel('Search by hash, transaction ID or request ID').fill(hash);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('tx-count')).toHaveText('1 transaction');
  const grid = page.getByRole('grid', { name: 'Transactions' });
  await grid.getByRole('row').nth(1).getByRole('gridcell').first().click();
  await page.keyboard.press('Enter');
  const detail = page.getByRole('complementary', { name: 'Transaction detail' });
  await expect(detail).toContainText('MANTLE');
  await expect(detail).toContainText('109');
  await expect(detail.getByRole('link', { name: hash })).toHaveAttribute('href', `https://mantlescan.xyz/tx/${hash}`);
  await page.keyboard.press('Escape');
});
