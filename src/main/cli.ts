import { describeError } from './cli/errors';
import { onchainUsage } from './cli/onchain-usage';
import {
  balancesUsage,
  callUsage,
  chainsUsage,
  importUsage,
  keysUsage,
  ledgerUsage,
  reconcileUsage,
  retentionUsage,
  serveUsage,
  startUsage,
  tokensUsage,
  userUsage,
  walletsUsage,
} from './cli/usage';

/*
 * `npm run nps -- COMMAND …`: each command is loaded when it runs, so `--help` (and a typo) answer
 * without loading the service.
 */

interface Command {
  usage: string;
  load: () => Promise<(args: string[]) => Promise<void>>;
}

const commands: Record<string, Command> = {
  serve: { usage: serveUsage, load: async () => (await import('./cli/serve')).serveCommand },
  start: { usage: startUsage, load: async () => (await import('./cli/start')).startCommand },
  keys: { usage: keysUsage, load: async () => (await import('./cli/keys')).keysCommand },
  call: { usage: callUsage, load: async () => (await import('./cli/call')).callCommand },
  import: { usage: importUsage, load: async () => (await import('./cli/import')).importCommand },
  ledger: { usage: ledgerUsage, load: async () => (await import('./cli/ledger')).ledgerCommand },
  chains: { usage: chainsUsage, load: async () => (await import('./cli/catalogue')).chainsCommand },
  tokens: { usage: tokensUsage, load: async () => (await import('./cli/catalogue')).tokensCommand },
  reconcile: { usage: reconcileUsage, load: async () => (await import('./cli/reconcile')).reconcileCommand },
  wallets: { usage: walletsUsage, load: async () => (await import('./cli/wallets')).walletsCommand },
  balances: { usage: balancesUsage, load: async () => (await import('./cli/balances')).balancesCommand },
  user: { usage: userUsage, load: async () => (await import('./cli/user')).userCommand },
  retention: { usage: retentionUsage, load: async () => (await import('./cli/retention')).retentionCommand },
  onchain: { usage: onchainUsage, load: async () => (await import('./cli/onchain')).onchainCommand },
};

function usage(): string {
  return ['Usage:', ...Object.values(commands).map((c) => '  ' + c.usage.replace(/\n/g, '\n  '))].join('\n');
}

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  const command = name ? commands[name] : undefined;
  if (!command || rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write((command ? command.usage : usage()) + '\n');
    if (!command && name && name !== '--help' && name !== '-h') process.exitCode = 2;
    return;
  }
  const run = await command.load();
  await run(rest);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(describeError(err) + '\n');
  process.exit(1);
});
