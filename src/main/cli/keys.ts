import type { ApiKey } from '../../shared/keys';
import { dataDirOption, parseFlags, withService } from './common';
import { UsageError } from './errors';
import { keysUsage } from './usage';
import type { Invoker } from './running';
import { closest, requireSubcommand } from './suggest';

const cli = { actor: 'cli' as const };

/**
 * "W1,W2" -> their wallet IDs, each given by its name (ignoring case) or its ID; absent or "all" ->
 * null (every wallet). A wallet that does not exist is refused, naming it: a key scoped to a typo
 * would fail every request for a reason its holder cannot see.
 */
async function walletsFlag(service: Invoker, value: string | undefined): Promise<string[] | null> {
  if (value === undefined || value.trim().toLowerCase() === 'all') return null;
  const list = value
    .split(',')
    .map((w) => w.trim())
    .filter((w) => w !== '');
  if (list.length === 0) throw new UsageError('--wallets: give wallet names or IDs separated by commas, or "all"');
  const wallets = await service.invoke('wallets-list', {}, cli);
  return list.map((given) => {
    const found = wallets.find(
      (w) => w.wallet_id.toLowerCase() === given.toLowerCase() || (w.name !== '' && w.name.toLowerCase() === given.toLowerCase()),
    );
    if (found) return found.wallet_id;
    const names = wallets.map((w) => w.name).filter((n) => n !== '');
    const near = names.length ? `; did you mean ${JSON.stringify(closest(given, names))}?` : '; there are no wallets yet';
    throw new UsageError(`--wallets: no wallet is named or has the ID ${JSON.stringify(given)}${near} (nps wallets list)`);
  });
}

const when = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'));
const scope = (k: Pick<ApiKey, 'wallets'>) => (k.wallets === null ? 'all wallets' : k.wallets.join(','));

function describeKey(k: ApiKey): string {
  return [
    `${k.api_key}  ${JSON.stringify(k.label)}`,
    `  wallets: ${scope(k)}; created ${when(k.created_at)}; last used ${when(k.last_used_at)}${k.revoked_at === null ? '' : `; REVOKED ${when(k.revoked_at)}`}`,
  ].join('\n');
}

export async function keysCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, {
    label: { type: 'string' },
    wallets: { type: 'string' },
    'public-key': { type: 'string' },
    json: { type: 'boolean' },
    ...dataDirOption,
  });
  const [sub, ...rest] = positionals;
  requireSubcommand('keys', sub, ['create', 'add', 'list', 'update', 'revoke']);
  const out = (s: string) => process.stdout.write(s + '\n');
  await withService(values['data-dir'], async (service) => {
    switch (sub) {
      case 'create': {
        if (values.label === undefined) throw new UsageError('keys create: --label is required');
        const k = await service.invoke('keys-create', { label: values.label, wallets: await walletsFlag(service, values.wallets) }, cli);
        out(`Created API key ${JSON.stringify(k.label)} for ${scope(k)}.`);
        out(`API key:    ${k.api_key}`);
        out(`API secret: ${k.api_secret}`);
        out('The secret is shown this once and is not stored anywhere: keep it now. Sign requests with it, e.g.');
        out(`  npm run nps -- call GET /nps/ticket --query 'wallet_id=...&ticket_id=...' --secret ${k.api_secret}`);
        return;
      }
      case 'add': {
        if (values['public-key'] === undefined || values.label === undefined)
          throw new UsageError('keys add: --public-key and --label are required');
        const k = await service.invoke(
          'keys-add',
          { public_key: values['public-key'], label: values.label, wallets: await walletsFlag(service, values.wallets) },
          cli,
        );
        out(`Registered API key ${k.api_key} ${JSON.stringify(k.label)} for ${scope(k)}.`);
        return;
      }
      case 'list': {
        const keys = await service.invoke('keys-list', {}, cli);
        if (values.json) out(JSON.stringify(keys, null, 2));
        else out(keys.length === 0 ? 'No API keys yet: npm run nps -- keys create --label NAME' : keys.map(describeKey).join('\n'));
        return;
      }
      case 'update': {
        if (rest.length !== 1) throw new UsageError('keys update: give the API key to change');
        if (values.label === undefined && values.wallets === undefined)
          throw new UsageError('keys update: give --label, --wallets or both');
        const k = await service.invoke(
          'keys-update',
          {
            api_key: rest[0],
            ...(values.label !== undefined ? { label: values.label } : {}),
            ...(values.wallets !== undefined ? { wallets: await walletsFlag(service, values.wallets) } : {}),
          },
          cli,
        );
        out(`Updated API key ${k.api_key} ${JSON.stringify(k.label)}: ${scope(k)}.`);
        return;
      }
      case 'revoke': {
        if (rest.length !== 1) throw new UsageError('keys revoke: give the API key to revoke');
        const k = await service.invoke('keys-revoke', { api_key: rest[0] }, cli);
        out(`Revoked API key ${k.api_key} ${JSON.stringify(k.label)} at ${when(k.revoked_at)}; requests signed with it now get 2002.`);
        return;
      }
      default:
        throw new UsageError(`keys: unknown subcommand ${JSON.stringify(sub ?? '')}\n${keysUsage}`);
    }
  });
}
