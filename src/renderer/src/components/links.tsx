import { useState, type MouseEvent } from 'react';
import type { Chain } from '../../../shared/catalogue';
import { errorText, openExplorer } from '../api';
import { shorten } from '../lib/format';
import { chainById, useReference } from '../stores/reference';
import { Icon } from './icons';

/** The catalogue template filled in, for the link's address on hover; opening it goes through the service. */
function templateUrl(chain: Chain | undefined, kind: 'tx' | 'address', value: string): string | undefined {
  if (!chain) return undefined;
  const template = kind === 'tx' ? chain.explorer_tx_url : chain.explorer_address_url;
  const placeholder = kind === 'tx' ? '{hash}' : '{address}';
  if (!template.includes(placeholder) || !/^[A-Za-z0-9:_.-]+$/.test(value)) return undefined;
  const url = template.replace(placeholder, encodeURIComponent(value));
  return url.startsWith('https://') ? url : undefined;
}

/**
 * A hash or address that opens in the chain's explorer: the system browser in the desktop app,
 * a new tab in browser mode. Plain text when the chain has no https template.
 */
export function ExplorerLink({
  chainId,
  kind,
  value,
  short = true,
  head = 10,
  tail = 8,
}: {
  chainId: string;
  kind: 'tx' | 'address';
  value: string | null | undefined;
  short?: boolean;
  head?: number;
  tail?: number;
}) {
  const chains = useReference((s) => s.chains.data);
  const [error, setError] = useState<string>();
  if (!value) return <span className="muted">—</span>;
  const text = short ? shorten(value, head, tail) : value;
  const href = templateUrl(chainById(chains, chainId), kind, value);
  if (!href)
    return (
      <span className="mono" title={value}>
        {text}
      </span>
    );
  const open = (e: MouseEvent) => {
    e.preventDefault();
    e.stopPropagation();
    openExplorer({ chain_id: chainId, kind, value }).catch((err: unknown) => setError(errorText(err)));
  };
  return (
    <a className="mono explorer-link" href={href} onClick={open} title={error ?? `Open in explorer: ${value}`} rel="noopener noreferrer">
      {text}
      <Icon name="external" size={12} />
    </a>
  );
}
