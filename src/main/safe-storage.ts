import { safeStorage } from 'electron';
import type { SecretBox } from './service/onchain/nodes';

/**
 * The service's SecretBox in the desktop app: Electron's safeStorage, which seals with the system's
 * keychain (Keychain on macOS, DPAPI on Windows, the Secret Service or kwallet on Linux). Undefined
 * where the system offers none (a Linux without a keyring: safeStorage would fall back to a key
 * written in the app itself), and the URL is then kept as it is, in a file of mode 0600.
 */
export function safeStorageBox(): SecretBox | undefined {
  if (!safeStorage.isEncryptionAvailable()) return undefined;
  if (process.platform === 'linux' && safeStorage.getSelectedStorageBackend() === 'basic_text') return undefined;
  return {
    seal: (plain) => safeStorage.encryptString(plain).toString('base64'),
    open: (sealed) => safeStorage.decryptString(Buffer.from(sealed, 'base64')),
  };
}
