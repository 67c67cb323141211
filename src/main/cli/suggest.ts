import { UsageError } from './errors';

/**
 * A name the CLI does not know (a command, a subcommand or an option): said in one line with the
 * closest name it does know, and exit status 2, so a typo never gets a wall of usage.
 */
export class UnknownName extends UsageError {
  readonly exitCode = 2;
}

/** Edit distance (insert, delete, replace, swap two neighbours): what a slip of the keyboard costs. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The known name closest to `given`: one it starts or ends, else the fewest edits (the first listed on a tie). */
export function closest(given: string, known: readonly string[]): string {
  const g = given.toLowerCase();
  const prefix = known.find((k) => k.startsWith(g) || g.startsWith(k));
  if (prefix !== undefined && g !== '') return prefix;
  let best = known[0]!;
  let bestCost = Infinity;
  for (const k of known) {
    const cost = distance(g, k);
    if (cost < bestCost) [best, bestCost] = [k, cost];
  }
  return best;
}

/** `what` is e.g. 'command', 'subcommand of keys', 'option'; names are shown as the user types them. */
export function unknownName(what: string, given: string, known: readonly string[], hint = ''): UnknownName {
  return new UnknownName(`unknown ${what} ${JSON.stringify(given)}; did you mean ${JSON.stringify(closest(given, known))}?${hint}`);
}

/** Refuse a subcommand the command lacks: `nps keys lst` -> one line naming list. */
export function requireSubcommand(command: string, sub: string | undefined, known: readonly string[]): void {
  if (sub === undefined) throw new UnknownName(`give one of ${known.join(', ')} (nps ${command} --help says more)`);
  if (!known.includes(sub)) throw unknownName('subcommand', sub, known, ` (nps ${command} --help lists them)`);
}
