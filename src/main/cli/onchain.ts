import { setTimeout as sleep } from 'node:timers/promises';
import type { ChainBalances, NodeInfo, OnchainCheck, OnchainItem } from '../../shared/onchain';
import type { IgnoredToken } from '../../shared/catalogue';
import { dataDirOption, parseFlags, withService } from './common';
import { UsageError } from './errors';
import { chainsRpcUsage, onchainUsage, tokensIgnoreUsage } from './onchain-usage';
import type { Invoker } from './running';
import { walletId } from './wallets';

/*
 * The chain as the third witness, from the command line: a node per chain (`chains rpc`), checks
 * of the ledger against the nodes and balances at a block (`onchain`), spam tokens ignored
 * (`tokens ignore`), token details read from the contract (`tokens add` without --symbol/--decimal).
 * Every call goes through the service (the running one when there is one), as the window's do.
 */

const cli = { actor: 'cli' as const };
const out = (s: string) => process.stdout.write(s + '\n');

/** A table of text columns. */
function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}

const describeNode = (n: NodeInfo): string =>
  `${n.chain_id.padEnd(14)} ${n.family.padEnd(5)} chain id ${(n.network_id || '?').padEnd(10)} ${
    !n.supported
      ? 'cannot be read'
      : n.configured
        ? `${n.url}${n.kept === 'safe_storage' ? ' (sealed by the desktop app)' : ''}`
        : 'no node'
  }`;

async function readStdinLine(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text.split(/\r?\n/)[0]!.trim();
}

/** `nps chains rpc …` */
export async function chainsRpcCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, { ...dataDirOption, clear: { type: 'boolean' }, json: { type: 'boolean' } });
  const [chainId, given, ...extra] = positionals;
  if (extra.length > 0 || (values.clear && given !== undefined) || (values.clear && chainId === undefined))
    throw new UsageError(chainsRpcUsage);
  await withService(values['data-dir'], async (service) => {
    if (values.clear) {
      const n = await service.invoke('onchain-node-clear', { chain_id: chainId }, cli);
      out(`Cleared the node of ${n.chain_id}: its records are no longer checked.`);
    } else if (given === undefined) {
      const nodes = (await service.invoke('onchain-nodes-list', {}, cli)).filter((n) => chainId === undefined || n.chain_id === chainId);
      if (chainId !== undefined && nodes.length === 0) throw new UsageError(`CHAIN_ID: unknown chain ${JSON.stringify(chainId)}`);
      out(values.json ? JSON.stringify(nodes, null, 2) : nodes.map(describeNode).join('\n'));
    } else {
      const url = given === '-' ? await readStdinLine() : given;
      const n = await service.invoke('onchain-node-set', { chain_id: chainId, url }, cli);
      out(
        `${n.chain_id}: the node at ${n.url} answers chain id ${n.node_network_id} (${n.name}); its newest block is ${n.head}.\n` +
          `Kept in the data folder (${n.kept === 'safe_storage' ? "nodes.json, sealed with the system's keychain" : 'nodes.json, readable by you only'}); never shown whole.`,
      );
    }
  });
}

/** Symbol and decimal read from a token's contract through the chain's node (`tokens add` without them). */
export async function tokenFromNode(
  service: Invoker,
  chainId: string,
  contract: string,
): Promise<{ symbol: string; decimal: number; name: string }> {
  const nodes = await service.invoke('onchain-nodes-list', {}, cli);
  const node = nodes.find((n) => n.chain_id === chainId);
  if (!node?.configured)
    throw new UsageError(
      `give --symbol and --decimal, or set ${chainId}'s node (npm run nps -- chains rpc ${chainId} URL) to read them from the contract`,
    );
  const { tokens } = await service.invoke('onchain-token-details', { chain_id: chainId, contract_addresses: [contract] }, cli);
  const t = tokens[0]!;
  if (t.error !== '' || t.decimal === null || t.symbol === '')
    throw new UsageError(
      `--contract: ${contract} on ${chainId}: ${t.error || 'the contract gives no symbol'}; give --symbol and --decimal`,
    );
  process.stderr.write(`Read from ${chainId}'s node: symbol ${t.symbol}, decimals ${t.decimal}${t.name ? `, name ${t.name}` : ''}.\n`);
  return { symbol: t.symbol, decimal: t.decimal, name: t.name };
}

const describeIgnored = (t: IgnoredToken): string =>
  `${t.chain_id.padEnd(14)} ${t.contract_address}  ${t.symbol || '?'}${t.name ? ` (${t.name})` : ''}`;

/** `nps tokens ignore|unignore|ignored …` */
export async function tokensIgnoreCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, {
    ...dataDirOption,
    contract: { type: 'string' },
    symbol: { type: 'string' },
    name: { type: 'string' },
    'chain-id': { type: 'string' },
    json: { type: 'boolean' },
  });
  const [sub, chainId, ...extra] = positionals;
  if (extra.length > 0) throw new UsageError(tokensIgnoreUsage);
  await withService(values['data-dir'], async (service) => {
    if (sub === 'ignored') {
      const list = await service.invoke('catalogue-ignored-list', values['chain-id'] ? { chain_id: values['chain-id'] } : {}, cli);
      out(values.json ? JSON.stringify(list, null, 2) : list.length ? list.map(describeIgnored).join('\n') : 'No token is ignored.');
      return;
    }
    if (chainId === undefined || values.contract === undefined)
      throw new UsageError(`CHAIN_ID and --contract are required\n${tokensIgnoreUsage}`);
    if (sub === 'ignore') {
      const t = await service.invoke(
        'catalogue-token-ignore',
        { chain_id: chainId, contract_address: values.contract, symbol: values.symbol ?? '', name: values.name ?? '' },
        cli,
      );
      out(`Ignored on ${t.chain_id}: ${t.contract_address}${t.symbol ? ` (${t.symbol})` : ''}. Imports skip its rows and count them.`);
    } else {
      const t = await service.invoke('catalogue-token-unignore', { chain_id: chainId, contract_address: values.contract }, cli);
      out(`No longer ignored on ${t.chain_id}: ${t.contract_address}. Its rows are rejected as an unknown token until it is added.`);
    }
  });
}

const SUMMARY_ORDER = ['agrees', 'differs', 'pending', 'not_found', 'unchecked'] as const;

function progressLine(c: OnchainCheck): string {
  const s = c.summary;
  return `checked ${c.done} of ${c.total}: ${SUMMARY_ORDER.map((k) => `${k.replace('_', ' ')} ${s[k]}`).join(', ')}${c.retries ? ` (${c.retries} retries)` : ''}`;
}

function describeItem(i: OnchainItem): string {
  const fields = i.fields.length ? ` [${i.fields.join(', ')}]` : '';
  return `  ${i.outcome.padEnd(9)} ${i.transaction_id}  ${i.chain_id} ${i.token_id} ${i.hash}${fields}\n            ${i.reason}`;
}

async function allItems(service: Invoker, checkId: string): Promise<OnchainItem[]> {
  const items: OnchainItem[] = [];
  for (let page = 1; ; page++) {
    const p = await service.invoke('onchain-check-items', { check_id: checkId, page, page_size: 1000 }, cli);
    items.push(...p.list);
    if (items.length >= p.total || p.list.length === 0) return items;
  }
}

async function check(service: Invoker, values: Record<string, string | boolean | undefined>): Promise<void> {
  const wallet = typeof values.wallet === 'string' ? await walletId(service, values.wallet) : undefined;
  let c = await service.invoke(
    'onchain-check-start',
    {
      ...(wallet ? { wallet_id: wallet } : {}),
      ...(typeof values.from === 'string' ? { from: values.from } : {}),
      ...(typeof values.to === 'string' ? { to: values.to } : {}),
      ...(typeof values['time-zone'] === 'string' ? { time_zone: values['time-zone'] } : {}),
      restart: values.restart === true,
    },
    cli,
  );
  const tty = process.stderr.isTTY;
  if (c.resumed > 0) process.stderr.write(`Resuming check ${c.check_id} where it stopped (${c.done} of ${c.total} done).\n`);
  // Ctrl-C stops the check after its current page; the same command resumes it.
  let stopping = false;
  const onSigint = () => {
    if (stopping) process.exit(130);
    stopping = true;
    process.stderr.write('\nStopping after the current page (Ctrl-C again to leave at once)…\n');
    void service.invoke('onchain-check-cancel', { check_id: c.check_id }, cli).catch(() => undefined);
  };
  process.on('SIGINT', onSigint);
  try {
    while (c.state === 'running') {
      if (tty) process.stderr.write(`\r${progressLine(c)}`);
      await sleep(250);
      c = await service.invoke('onchain-check-get', { check_id: c.check_id }, cli);
    }
  } finally {
    process.off('SIGINT', onSigint);
  }
  if (tty) process.stderr.write(`\r${progressLine(c)}\n`);
  const items = await allItems(service, c.check_id);
  const { summary } = c;
  if (values.json) {
    out(
      JSON.stringify(
        { check_id: c.check_id, state: c.state, summary, total: c.total, without_hash: c.without_hash, retries: c.retries, items },
        null,
        2,
      ),
    );
  } else {
    const lines = [
      `Checked ${c.done} of ${c.total} records with a hash against the chains (check ${c.check_id}, ${c.state})`,
      ...SUMMARY_ORDER.map((k) => `  ${k.replace('_', ' ').padEnd(10)} ${summary[k]}`),
    ];
    if (c.without_hash > 0) lines.push(`${c.without_hash} records in scope have no hash and were not asked about.`);
    const notable = items.filter((i) => i.outcome !== 'agrees');
    if (notable.length) lines.push('', ...notable.slice(0, 200).map(describeItem));
    if (notable.length > 200) lines.push(`  … ${notable.length - 200} more (--json lists every one)`);
    if (summary.differs + summary.not_found > 0)
      lines.push('', `${summary.differs + summary.not_found} exceptions of kind onchain are in the queue.`);
    if (c.state === 'cancelled') lines.push('', 'Stopped before the end: run the same command again to resume.');
    if (c.state === 'failed') lines.push('', `The check failed: ${c.error}. Run the same command again to resume.`);
    out(lines.join('\n'));
  }
  if (summary.differs + summary.pending + summary.not_found > 0 || c.state !== 'done') process.exitCode = 1;
}

function describeBalances(b: ChainBalances): string {
  const lines = [`Balances on chain at ${new Date(b.at).toISOString()} (${b.time_zone}):`];
  for (const c of b.chains)
    lines.push(
      c.reason
        ? `  ${c.chain_id} (${c.address}): not read: ${c.reason}`
        : `  ${c.chain_id} (${c.address}): block ${c.block_number} of ${new Date(c.block_time!).toISOString()}`,
    );
  if (b.rows.length)
    lines.push(
      '',
      table(
        ['CHAIN', 'TOKEN', 'ON CHAIN', 'LEDGER', 'DIFFERENCE', 'EXCEPTION'],
        b.rows.map((r) => [r.chain_id, r.token_id, r.chain_balance, r.ledger_balance, r.difference, r.ticket_id ?? '']),
      ),
    );
  const differing = b.rows.filter((r) => r.difference !== '0').length;
  lines.push('', differing ? `${differing} balance(s) differ: balance exceptions are in the queue.` : 'The chain and the ledger agree.');
  return lines.join('\n');
}

/** `nps onchain …` */
export async function onchainCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, {
    ...dataDirOption,
    wallet: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    at: { type: 'string' },
    'time-zone': { type: 'string' },
    restart: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  const [sub, ...extra] = positionals;
  if (extra.length > 0 || (sub !== 'check' && sub !== 'balance')) throw new UsageError(onchainUsage);
  await withService(values['data-dir'], async (service) => {
    if (sub === 'check') return check(service, values);
    if (values.wallet === undefined || values.at === undefined) throw new UsageError(`--wallet and --at are required\n\n${onchainUsage}`);
    const b = await service.invoke(
      'onchain-balance',
      {
        wallet_id: await walletId(service, values.wallet),
        at: values.at,
        ...(values['time-zone'] !== undefined ? { time_zone: values['time-zone'] } : {}),
      },
      cli,
    );
    out(values.json ? JSON.stringify(b, null, 2) : describeBalances(b));
    if (b.rows.some((r) => r.difference !== '0')) process.exitCode = 1;
  });
}
