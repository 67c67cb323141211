import type { Chain } from '../../../shared/catalogue';

/** A catalogue template with its placeholder filled; only https: links leave the app (undefined otherwise). */
export function explorerUrl(template: string, placeholder: '{hash}' | '{address}', value: string): string | undefined {
  if (!template.includes(placeholder)) return undefined;
  let url: URL;
  try {
    url = new URL(template.replace(placeholder, encodeURIComponent(value)));
  } catch {
    return undefined;
  }
  return url.protocol === 'https:' ? url.toString() : undefined;
}

/** The explorer page of a transaction on a chain, or "" when the chain has none (or no hash is known). */
export const explorerTxUrl = (chain: Pick<Chain, 'explorer_tx_url'> | undefined, hash: string): string =>
  chain === undefined || hash === '' ? '' : (explorerUrl(chain.explorer_tx_url, '{hash}', hash) ?? '');
