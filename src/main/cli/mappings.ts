import { readFileSync } from 'node:fs';
import { BooksMapping, type SavedMapping } from '../../shared/reconcile';
import { parseInput } from '../service/errors';
import { dataDirOption, parseFlags, withService } from './common';
import { UsageError } from './errors';
import { mappingsUsage } from './usage';
import { walletId } from './wallets';

/*
 * `nps mappings …`: the books mappings kept for the next file of a layout (a run keeps the one it
 * used; `reconcile --save-map NAME` names it), listed, shown as the JSON `reconcile --map FILE`
 * takes, renamed, edited from such a file, moved to another wallet, removed.
 */

const cli = { actor: 'cli' as const };
const out = (s: string) => process.stdout.write(s + '\n');
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function describeMapping(m: SavedMapping, walletNames: Map<string, string>): string {
  const wallet = m.wallet_id === null ? 'every wallet' : `wallet ${walletNames.get(m.wallet_id) || m.wallet_id}`;
  const columns = m.headers.length > 6 ? `${m.headers.slice(0, 6).join(', ')}, … (${m.headers.length} columns)` : m.headers.join(', ');
  return [
    `${m.name}${m.named ? '' : '  (remembered from a run)'}`,
    `  for ${wallet}; last used ${day(m.used_at)}`,
    `  layout: ${columns}`,
  ].join('\n');
}

/** A books mapping from a JSON file (`--map FILE`), checked as the service checks it. */
export function readMappingFile(path: string): BooksMapping {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`--map: cannot read ${path} as JSON: ${(err as Error).message}`);
  }
  return parseInput(BooksMapping, json, 'map');
}

export async function mappingsCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, {
    ...dataDirOption,
    json: { type: 'boolean', default: false },
    map: { type: 'string' },
    wallet: { type: 'string' },
  });
  const [sub, ...rest] = positionals;
  await withService(values['data-dir'], async (service) => {
    const names = async () => new Map((await service.invoke('wallets-list', {}, cli)).map((w) => [w.wallet_id, w.name]));
    const show = async (m: SavedMapping, verb: string) =>
      out(values.json ? JSON.stringify(m, null, 2) : `${verb}:\n${describeMapping(m, await names())}`);
    const find = (name: string) => service.invoke('books-mapping-get', { mapping: name }, cli);
    if (sub === 'list' && rest.length === 0) {
      const list = await service.invoke('books-mappings-list', {}, cli);
      if (values.json) out(JSON.stringify(list, null, 2));
      else if (list.length === 0) out('No saved mappings yet: a reconcile run keeps the mapping it used.');
      else {
        const wallets = await names();
        out(list.map((m) => describeMapping(m, wallets)).join('\n'));
      }
    } else if (sub === 'show' && rest.length === 1) {
      const m = await find(rest[0]!);
      // The mapping as `reconcile --map FILE` and `mappings edit --map FILE` take it.
      out(JSON.stringify(values.json ? m : m.mapping, null, 2));
    } else if (sub === 'rename' && rest.length === 2) {
      const m = await find(rest[0]!);
      await show(await service.invoke('books-mapping-update', { mapping_id: m.mapping_id, name: rest[1]! }, cli), 'Renamed');
    } else if (sub === 'edit' && rest.length === 1 && (values.map !== undefined || values.wallet !== undefined)) {
      const m = await find(rest[0]!);
      const wallet =
        values.wallet === undefined ? undefined : values.wallet.toLowerCase() === 'all' ? null : await walletId(service, values.wallet);
      const change = {
        mapping_id: m.mapping_id,
        ...(values.map !== undefined ? { mapping: readMappingFile(values.map) } : {}),
        ...(wallet !== undefined ? { wallet_id: wallet } : {}),
      };
      await show(await service.invoke('books-mapping-update', change, cli), 'Changed');
    } else if (sub === 'remove' && rest.length === 1) {
      await show(await service.invoke('books-mapping-remove', { mapping: rest[0]! }, cli), 'Removed');
    } else {
      throw new UsageError(mappingsUsage);
    }
  });
}
