import { callCommand, callUsage } from './cli/call';
import { chainsCommand, chainsUsage, tokensCommand, tokensUsage } from './cli/catalogue';
import { describeError } from './cli/common';
import { importCommand, importUsage } from './cli/import';
import { keysCommand, keysUsage } from './cli/keys';
import { serveCommand, serveUsage } from './cli/serve';
import { startCommand, startUsage } from './cli/start';

interface Command {
  usage: string;
  run: (args: string[]) => Promise<void>;
}

const commands: Record<string, Command> = {
  serve: { usage: serveUsage, run: serveCommand },
  start: { usage: startUsage, run: startCommand },
  keys: { usage: keysUsage, run: keysCommand },
  call: { usage: callUsage, run: callCommand },
  import: { usage: importUsage, run: importCommand },
  chains: { usage: chainsUsage, run: chainsCommand },
  tokens: { usage: tokensUsage, run: tokensCommand },
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
  await command.run(rest);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  process.stderr.write(describeError(err) + '\n');
  process.exit(1);
});
