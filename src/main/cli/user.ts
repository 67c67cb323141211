import { dataDirOption, parseFlags, withService } from './common';
import { UsageError } from './errors';
import { userUsage } from './usage';

const cli = { actor: 'cli' as const };
const out = (s: string) => process.stdout.write(s + '\n');

/** `nps user [NAME]`: who the ticket events of the desktop app and the CLI name; NAME sets it. */
export async function userCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, { ...dataDirOption, json: { type: 'boolean' } });
  if (positionals.length > 1) throw new UsageError(userUsage);
  const [name] = positionals;
  await withService(values['data-dir'], async (service) => {
    const user = name === undefined ? await service.invoke('app-user-get', {}, cli) : await service.invoke('app-user-set', { name }, cli);
    if (values.json) out(JSON.stringify(user, null, 2));
    else if (name !== undefined) out(`Acting as ${user.name}: ticket events from the desktop app and the CLI name this user.`);
    else
      out(
        user.name
          ? `Acting as ${user.name}.`
          : 'No user named yet: ticket events say "the command line" or "the app". Set one: nps user NAME',
      );
  });
}
