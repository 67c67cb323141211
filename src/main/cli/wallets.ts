import type { WalletSummary } from '../../shared/wallets';
import { UUID_RE } from '../../shared/primitives';
import { dataDirOption, parseFlags, withService } from './common';
import { UsageError } from './errors';
import type { Invoker } from './running';
import { walletsUsage } from './usage';
import { requireSubcommand } from './suggest';

const cli = { actor: 'cli' as const };
const out = (s: string) => process.stdout.write(s + '\n');

function describeWallet(w: WalletSummary): string {
  const lines = [`${(w.name || '(unnamed)').padEnd(24)} ${w.wallet_id}  ${w.transactions} records`];
  for (const a of w.addresses) lines.push(`  ${a.chain_id.padEnd(14)} ${a.address}${a.label ? `  (${a.label})` : ''}`);
  if (w.notes) lines.push(`  notes: ${w.notes.replace(/\n/g, '\n         ')}`);
  return lines.join('\n');
}

/** A wallet given by its ID, or by its name (ignoring case). */
export async function walletId(service: Invoker, given: string): Promise<string> {
  if (UUID_RE.test(given)) return given;
  const wallets = await service.invoke('wallets-list', {}, cli);
  const found = wallets.find((w) => w.name !== '' && w.name.toLowerCase() === given.trim().toLowerCase());
  if (!found) throw new UsageError(`WALLET: no wallet is named ${JSON.stringify(given)} (give its name or its ID; \`nps wallets list\`)`);
  return found.wallet_id;
}

export async function walletsCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, {
    ...dataDirOption,
    notes: { type: 'string' },
    label: { type: 'string' },
    json: { type: 'boolean' },
  });
  const [sub, ...rest] = positionals;
  requireSubcommand('wallets', sub, ['list', 'create', 'rename', 'notes', 'address']);
  await withService(values['data-dir'], async (service) => {
    const show = (w: WalletSummary, verb: string) => out(values.json ? JSON.stringify(w, null, 2) : `${verb}:\n${describeWallet(w)}`);
    if (sub === 'list' && rest.length === 0) {
      const wallets = await service.invoke('wallets-list', {}, cli);
      out(values.json ? JSON.stringify(wallets, null, 2) : wallets.length ? wallets.map(describeWallet).join('\n') : 'No wallets yet.');
    } else if (sub === 'create' && rest.length === 1) {
      show(
        await service.invoke('wallet-create', { name: rest[0]!, ...(values.notes !== undefined ? { notes: values.notes } : {}) }, cli),
        'Created',
      );
    } else if (sub === 'rename' && rest.length === 2) {
      show(await service.invoke('wallet-update', { wallet_id: await walletId(service, rest[0]!), name: rest[1]! }, cli), 'Renamed');
    } else if (sub === 'notes' && rest.length === 2) {
      show(await service.invoke('wallet-update', { wallet_id: await walletId(service, rest[0]!), notes: rest[1]! }, cli), 'Changed');
    } else if (sub === 'address' && (rest[0] === 'add' || rest[0] === 'remove') && rest.length === 4) {
      const [, wallet, chain, address] = rest as [string, string, string, string];
      const input = { wallet_id: await walletId(service, wallet), chain_id: chain, address };
      if (rest[0] === 'add')
        show(
          await service.invoke('wallet-address-add', { ...input, ...(values.label !== undefined ? { label: values.label } : {}) }, cli),
          'Added',
        );
      else show(await service.invoke('wallet-address-remove', input, cli), 'Removed');
    } else {
      throw new UsageError(walletsUsage);
    }
  });
}
