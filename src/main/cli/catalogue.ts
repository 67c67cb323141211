import type { Chain, Token } from '../../shared/catalogue';
import { CHAIN_FIELDS, TOKEN_FIELDS } from './usage';
import { dataDirOption, parseFlags, withService } from './common';
import { UsageError } from './errors';
import { chainsUsage, tokensUsage } from './usage';
import { requireSubcommand } from './suggest';

const cli = { actor: 'cli' as const };
const out = (s: string) => process.stdout.write(s + '\n');

/**
 * FIELD=VALUE words as the update's fields, under the contract's names: true/false for the flags,
 * whole numbers for integers, text for the rest (the service checks each and names the field at fault).
 */
function assignments(words: readonly string[], fields: readonly string[], integers: readonly string[]): Record<string, unknown> {
  if (words.length === 0) throw new UsageError(`give at least one FIELD=VALUE; FIELD is one of ${fields.join(', ')}`);
  const patch: Record<string, unknown> = {};
  for (const word of words) {
    const at = word.indexOf('=');
    const field = at < 0 ? word : word.slice(0, at);
    if (at < 0 || !fields.includes(field))
      throw new UsageError(`${JSON.stringify(word)}: expected FIELD=VALUE with FIELD one of ${fields.join(', ')}`);
    const value = word.slice(at + 1);
    if (['enabled', 'can_deposit', 'can_withdraw'].includes(field)) {
      if (value !== 'true' && value !== 'false') throw new UsageError(`${field}: must be true or false`);
      patch[field] = value === 'true';
    } else if (integers.includes(field)) {
      if (!/^-?\d+$/.test(value)) throw new UsageError(`${field}: must be a whole number`);
      patch[field] = Number(value);
    } else {
      patch[field] = value;
    }
  }
  return patch;
}

function required(value: string | undefined, flag: string, usage: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`${flag} is required\n${usage}`);
  return value;
}

function wholeNumber(value: string, flag: string): number {
  if (!/^\d+$/.test(value.trim())) throw new UsageError(`${flag}: must be a whole number`);
  return Number(value);
}

const yesNo = (b: boolean) => (b ? 'yes' : 'no');
const describeChain = (c: Chain) =>
  `${c.chain_id.padEnd(14)} ${c.chain_identifier.padEnd(5)} enabled=${yesNo(c.enabled).padEnd(3)} confirming_threshold=${String(c.confirming_threshold).padEnd(4)} ${c.explorer_tx_url}`;
const describeToken = (t: Token) =>
  `${t.token_id.padEnd(14)} ${t.chain_id.padEnd(13)} ${t.symbol.padEnd(5)} decimal=${String(t.decimal).padEnd(2)} can_deposit=${yesNo(t.can_deposit).padEnd(3)} can_withdraw=${yesNo(t.can_withdraw).padEnd(3)} dust_threshold=${t.dust_threshold} ${t.contract_address}`;

export async function chainsCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, {
    'chain-identifier': { type: 'string' },
    json: { type: 'boolean' },
    family: { type: 'string' },
    name: { type: 'string' },
    symbol: { type: 'string' },
    decimal: { type: 'string' },
    'confirming-threshold': { type: 'string' },
    'explorer-tx-url': { type: 'string' },
    'explorer-address-url': { type: 'string' },
    testnet: { type: 'boolean' },
    ...dataDirOption,
  });
  const [sub, id, ...words] = positionals;
  requireSubcommand('chains', sub, ['list', 'set', 'add']);
  await withService(values['data-dir'], async (service) => {
    if (sub === 'list') {
      const page = await service.invoke('catalogue-chains-list', { page_size: 100, chain_identifier: values['chain-identifier'] }, cli);
      out(values.json ? JSON.stringify(page.chains, null, 2) : page.chains.map(describeChain).join('\n'));
    } else if (sub === 'add' && id !== undefined && words.length === 0) {
      const chain = await service.invoke(
        'catalogue-chain-add',
        {
          chain_id: id,
          chain_identifier: values.family ?? 'ETH',
          name: values.name ?? id,
          native_symbol: required(values.symbol, '--symbol', chainsUsage),
          native_decimal: wholeNumber(values.decimal ?? '18', '--decimal'),
          ...(values['confirming-threshold'] !== undefined
            ? { confirming_threshold: wholeNumber(values['confirming-threshold'], '--confirming-threshold') }
            : {}),
          ...(values['explorer-tx-url'] !== undefined ? { explorer_tx_url: values['explorer-tx-url'] } : {}),
          ...(values['explorer-address-url'] !== undefined ? { explorer_address_url: values['explorer-address-url'] } : {}),
          ...(values.testnet ? { is_testnet: true } : {}),
        },
        cli,
      );
      out(`Added ${chain.chain_id}:\n${describeChain(chain)}`);
    } else if (sub === 'set' && id !== undefined) {
      const chain = await service.invoke(
        'catalogue-chain-update',
        { chain_id: id, ...assignments(words, CHAIN_FIELDS, ['confirming_threshold']) },
        cli,
      );
      out(`Changed ${chain.chain_id}:\n${describeChain(chain)}`);
    } else {
      throw new UsageError(chainsUsage);
    }
  });
}

export async function tokensCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseFlags(args, {
    'chain-id': { type: 'string' },
    json: { type: 'boolean' },
    symbol: { type: 'string' },
    contract: { type: 'string' },
    decimal: { type: 'string' },
    'token-id': { type: 'string' },
    name: { type: 'string' },
    ...dataDirOption,
  });
  const [sub, id, ...words] = positionals;
  requireSubcommand('tokens', sub, ['list', 'set', 'add', 'remove']);
  await withService(values['data-dir'], async (service) => {
    if (sub === 'list') {
      const page = await service.invoke('catalogue-tokens-list', { page_size: 100, chain_id: values['chain-id'] }, cli);
      out(values.json ? JSON.stringify(page.tokens, null, 2) : page.tokens.map(describeToken).join('\n'));
    } else if (sub === 'add' && id !== undefined && words.length === 0) {
      const token = await service.invoke(
        'catalogue-token-add',
        {
          chain_id: id,
          symbol: required(values.symbol, '--symbol', tokensUsage),
          contract_address: required(values.contract, '--contract', tokensUsage),
          decimal: wholeNumber(required(values.decimal, '--decimal', tokensUsage), '--decimal'),
          ...(values['token-id'] !== undefined ? { token_id: values['token-id'] } : {}),
          ...(values.name !== undefined ? { name: values.name } : {}),
        },
        cli,
      );
      out(`Added ${token.token_id}:\n${describeToken(token)}`);
    } else if (sub === 'set' && id !== undefined) {
      const token = await service.invoke('catalogue-token-update', { token_id: id, ...assignments(words, TOKEN_FIELDS, ['decimal']) }, cli);
      out(`Changed ${token.token_id}:\n${describeToken(token)}`);
    } else if (sub === 'remove' && id !== undefined && words.length === 0) {
      const token = await service.invoke('catalogue-token-remove', { token_id: id }, cli);
      out(`Removed ${token.token_id}:\n${describeToken(token)}`);
    } else {
      throw new UsageError(tokensUsage);
    }
  });
}
