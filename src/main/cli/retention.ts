import type { RetentionApplied, RetentionPolicy, RetentionStatus, RetentionStore } from '../../shared/retention';
import { dataDirOption, parseFlags, withService } from './common';
import { UsageError } from './errors';
import { retentionUsage } from './usage';
import { requireSubcommand } from './suggest';

const out = (s: string) => process.stdout.write(s + '\n');
const count = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, one: string, many = `${one}s`) => `${count(n)} ${n === 1 ? one : many}`;

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}

const describePolicy = (p: RetentionPolicy) =>
  `keep the runs of the last ${plural(p.days, 'day')} and at least the last ${plural(p.runs, 'run')}; ` +
  'older runs keep only the items that opened or touched a ticket';

const describeStore = (s: RetentionStore) =>
  `${s.file}: ${bytes(s.db_bytes)}, write-ahead log ${bytes(s.wal_bytes)}, ${bytes(s.free_bytes)} free inside for new rows`;

function describeStatus(s: RetentionStatus): string {
  return [
    `Policy: ${describePolicy(s.policy)}.`,
    `Store:  ${describeStore(s.store)}.`,
    `Stored: ${plural(s.runs, 'run')}, ${plural(s.items, 'item')}.`,
    `The policy removes now: ${plural(s.would_remove.runs, 'run')} and ${plural(s.would_remove.items, 'item')}` +
      (s.running ? ' (a removal is running).' : '.'),
  ].join('\n');
}

function describeApplied(a: RetentionApplied): string {
  if (a.removed.runs + a.removed.items === 0) return `Nothing to remove: the policy (${describePolicy(a.policy)}) keeps every item stored.`;
  const lines = [`Removed ${plural(a.removed.runs, 'run')} and ${plural(a.removed.items, 'item')}.`];
  if (a.kept_for_tickets.runs > 0) {
    lines.push(
      `Kept ${plural(a.kept_for_tickets.runs, 'older run')} for ${plural(a.kept_for_tickets.items, 'item')} that opened or touched a ticket.`,
    );
  }
  lines.push(
    a.vacuum === 'incremental'
      ? `The file gave its free pages back to the disk: ${bytes(a.db_bytes_before)} before, ${bytes(a.db_bytes_after)} now (less again once the write-ahead log is folded in).`
      : `The file keeps its size (${bytes(a.db_bytes_after)}): the ${bytes(a.store.free_bytes)} free inside it is reused by new runs, and only a VACUUM would give it back to the disk (never run automatically: it rewrites the whole store).`,
  );
  return lines.join('\n');
}

/** A whole number for the service to check (it names the field when it is out of range); anything else as given, for the same. */
const numberOrText = (v: string | undefined): number | string | undefined => (v !== undefined && /^-?\d+$/.test(v) ? Number(v) : v);

export async function retentionCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, {
    days: { type: 'string' },
    runs: { type: 'string' },
    json: { type: 'boolean', default: false },
    ...dataDirOption,
  });
  const [sub = 'show', ...rest] = positionals;
  requireSubcommand('retention', sub, ['show', 'set', 'apply']);
  if (rest.length > 0 || !['show', 'set', 'apply'].includes(sub)) throw new UsageError(retentionUsage);
  if (sub !== 'set' && (values.days !== undefined || values.runs !== undefined)) {
    throw new UsageError(`retention ${sub}: --days and --runs go with retention set\n${retentionUsage}`);
  }
  if (sub === 'set' && values.days === undefined && values.runs === undefined) {
    throw new UsageError(`retention set: give --days N, --runs M or both\n${retentionUsage}`);
  }
  const print = (value: unknown, text: string) => out(values.json ? JSON.stringify(value, null, 2) : text);
  const tty = process.stderr.isTTY === true && !values.json;
  await withService(values['data-dir'], async (service) => {
    if (sub === 'set') {
      const input = {
        ...(values.days !== undefined ? { days: numberOrText(values.days) } : {}),
        ...(values.runs !== undefined ? { runs: numberOrText(values.runs) } : {}),
      };
      const policy = await service.invoke('retention-set', input, { actor: 'cli' });
      const status = await service.invoke('retention-get', {}, { actor: 'cli' });
      print(
        policy,
        `Policy: ${describePolicy(policy)}.\nIt removes now: ${plural(status.would_remove.runs, 'run')} and ${plural(status.would_remove.items, 'item')} (npm run nps -- retention apply, or the next pass).`,
      );
    } else if (sub === 'apply') {
      const applied = await service.invoke(
        'retention-apply',
        {},
        {
          actor: 'cli',
          onProgress: tty ? (p) => process.stderr.write(`\rremoving: ${count(p.done)} of ${count(p.total ?? 0)} items`) : undefined,
        },
      );
      if (tty) process.stderr.write('\r\x1b[K');
      print(applied, describeApplied(applied));
    } else {
      const status = await service.invoke('retention-get', {}, { actor: 'cli' });
      print(status, describeStatus(status));
    }
  });
}
