import { describeError } from './cli/errors';
import { UnknownName, unknownName } from './cli/suggest';
import {
  balancesUsage,
  callUsage,
  chainsUsage,
  importUsage,
  keysUsage,
  openUsage,
  ledgerUsage,
  mappingsUsage,
  reconcileUsage,
  retentionUsage,
  serveUsage,
  startUsage,
  ticketsUsage,
  tokensUsage,
  userUsage,
  walletsUsage,
} from './cli/usage';

/*
 * `nps COMMAND …` (also `npm run nps -- COMMAND …`): each command is loaded when it runs, so `--help`
 * (and a typo) answer without loading the service.
 */

interface Command {
  usage: string;
  load: () => Promise<(args: string[]) => Promise<void>>;
}

const commands: Record<string, Command> = {
  serve: { usage: serveUsage, load: async () => (await import('./cli/serve')).serveCommand },
  start: { usage: startUsage, load: async () => (await import('./cli/start')).startCommand },
  open: { usage: openUsage, load: async () => (await import('./cli/open')).openCommand },
  keys: { usage: keysUsage, load: async () => (await import('./cli/keys')).keysCommand },
  call: { usage: callUsage, load: async () => (await import('./cli/call')).callCommand },
  import: { usage: importUsage, load: async () => (await import('./cli/import')).importCommand },
  ledger: { usage: ledgerUsage, load: async () => (await import('./cli/ledger')).ledgerCommand },
  chains: { usage: chainsUsage, load: async () => (await import('./cli/catalogue')).chainsCommand },
  tokens: { usage: tokensUsage, load: async () => (await import('./cli/catalogue')).tokensCommand },
  reconcile: { usage: reconcileUsage, load: async () => (await import('./cli/reconcile')).reconcileCommand },
  mappings: { usage: mappingsUsage, load: async () => (await import('./cli/mappings')).mappingsCommand },
  wallets: { usage: walletsUsage, load: async () => (await import('./cli/wallets')).walletsCommand },
  balances: { usage: balancesUsage, load: async () => (await import('./cli/balances')).balancesCommand },
  user: { usage: userUsage, load: async () => (await import('./cli/user')).userCommand },
  retention: { usage: retentionUsage, load: async () => (await import('./cli/retention')).retentionCommand },
  tickets: { usage: ticketsUsage, load: async () => (await import('./cli/tickets')).ticketsCommand },
};

function usage(): string {
  return ['Usage:', ...Object.values(commands).map((c) => '  ' + c.usage.replace(/\n/g, '\n  '))].join('\n');
}

async function main(argv: string[]): Promise<void> {
  // Everything the service and the commands write (the store, logs, api.json, exports) is this
  // user's alone: the ledger, its tickets and keys are nobody else's to read.
  process.umask(0o077);
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage() + '\n');
    return;
  }
  const command = commands[name];
  if (!command) throw new UnknownName(`nps: ${unknownName('command', name, Object.keys(commands), ' (nps --help lists them)').message}`);
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(command.usage + '\n');
    return;
  }
  const run = await command.load();
  try {
    await run(rest);
  } catch (err) {
    // Which command did not know the name: `nps keys: unknown option "--walets"; did you mean "--wallets"?`
    if (err instanceof UnknownName) throw new UnknownName(`nps ${name}: ${err.message}`);
    throw err;
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(describeError(err) + '\n');
  process.exit(err instanceof UnknownName ? err.exitCode : 1);
});
