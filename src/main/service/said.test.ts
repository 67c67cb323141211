import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { callForWindow } from './app/call';
import { answerFor, byDoor, sayFor } from './said';
import { tempService } from './test-support';

/*
 * The window names its screens, fields and buttons where the command line names its flags and
 * commands: one sentence, each door saying its own part.
 */

const EXPORTS = join(import.meta.dirname, '../../../test/fixtures/exports');
/** What only a command line says: a flag, or a command. */
const COMMAND_LINE = /(^|[\s(`])--[a-z]|`?nps [a-z]+ [a-z]+/;

describe('each door says its own words', () => {
  it('a phrase is the command line’s on the command line, the window’s in the window; the rest is left as it is', () => {
    const text = `give it (${byDoor('--wallet-address', 'Wallet address, in the import dialog')}); then ${byDoor('`nps tokens add`', 'Add to catalogue')}`;
    expect(sayFor(text, 'cli')).toBe('give it (--wallet-address); then `nps tokens add`');
    expect(sayFor(text, 'window')).toBe('give it (Wallet address, in the import dialog); then Add to catalogue');
    expect(sayFor('nothing to say', 'window')).toBe('nothing to say');
    const answer = {
      rows: [
        { reason: text, row: 3 },
        { reason: 'plain', row: 4 },
      ],
      n: 2,
      none: null,
      ok: true,
    };
    const said = answerFor(answer, 'window');
    expect(said).toEqual({
      rows: [
        { reason: 'give it (Wallet address, in the import dialog); then Add to catalogue', row: 3 },
        { reason: 'plain', row: 4 },
      ],
      n: 2,
      none: null,
      ok: true,
    });
    // Nothing to say otherwise: the answer itself, not a copy.
    const plain = { rows: [{ reason: 'plain' }] };
    expect(answerFor(plain, 'cli')).toBe(plain);
    expect(answer.rows[0]!.reason).toBe(text);
  });

  describe('an import the window makes of a real export with a token the catalogue lacks', () => {
    const svc = tempService();
    afterAll(() => svc.dispose());
    const file = join(EXPORTS, 'etherscan-0x003dc-erc20.csv');

    it('tells the window to use its button and the command line its command, in the report and in every rejected row', async () => {
      const input = { source: { path: file }, wallet_name: 'Treasury', chain_id: 'ETH' };
      const window = await callForWindow(svc.handlers, 'ledger-import', input, { actor: 'ui' }, () => {});
      expect(window.status).toBe(0);
      const report = window.data as { message: string; rejected: number; rejections: { reason: string }[]; import_id: string };
      expect(report.rejected).toBeGreaterThan(0);
      expect(report.message).toMatch(
        /add (it|them) to the catalogue \(Add to catalogue, in the list of unknown tokens\), then import again/,
      );
      expect(report.rejections[0]!.reason).toMatch(/Add to catalogue, in the import's list of unknown tokens/);
      const text = JSON.stringify(window);
      expect(text).not.toMatch(COMMAND_LINE);
      expect(text).not.toMatch(/[\uE000-\uE002]/);

      // The same import, read back later by the window from its history: kept with both, said the window's way.
      const detail = await callForWindow(svc.handlers, 'import-get', { import_id: report.import_id }, { actor: 'ui' }, () => {});
      expect(JSON.stringify(detail)).not.toMatch(COMMAND_LINE);
      expect(JSON.stringify(detail)).toMatch(/Add to catalogue/);
      // As the command line reads it: the command.
      const cli = answerFor(await svc.invoke('import-get', { import_id: report.import_id }, { actor: 'cli' }), 'cli');
      expect(cli.rejections[0]!.reason).toMatch(/add it with `nps tokens add` or in the import dialog, then import again/);
    });

    it('a refusal is said the window’s way too', async () => {
      const refused = await callForWindow(
        svc.handlers,
        'ledger-import',
        { source: { path: file }, wallet_name: 'Treasury', chain_id: 'ETH', token_id: 'ETH_NOPE' },
        { actor: 'ui' },
        () => {},
      );
      expect(refused.status).toBe(1002);
      expect(refused.msg).toBe('token_id: unknown token "ETH_NOPE" (add it to the catalogue from the import\'s list of unknown tokens)');
    });
  });
});
