import { useEffect } from 'react';
import { shorten } from '../lib/format';
import { useReference } from '../stores/reference';

/** A wallet as people know it: its name (a short ID while unnamed), the full ID on hover. */
export function WalletName({ id }: { id: string }) {
  const wallets = useReference((s) => s.wallets.data);
  const loadWallets = useReference((s) => s.loadWallets);
  useEffect(() => loadWallets(), [loadWallets]);
  const name = wallets?.find((w) => w.wallet_id === id.toLowerCase())?.name;
  return name ? (
    <span className="wallet-name" title={id}>
      {name}
    </span>
  ) : (
    <span className="mono" title={id}>
      {shorten(id, 8, 4)}
    </span>
  );
}

/** The text of a wallet for an option or a sentence: its name, else its short ID. */
export function walletLabel(wallets: { wallet_id: string; name: string }[] | undefined, id: string): string {
  return wallets?.find((w) => w.wallet_id === id.toLowerCase())?.name || shorten(id, 8, 4);
}
