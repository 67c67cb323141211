/**
 * better-sqlite3 built for Electron lives apart from the one built for this Node (tests, CLI), so
 * one checkout runs both: `npm run electron:rebuild` writes it here, the packaged app carries it as
 * an extra resource, and the shell passes it to the store as `nativeBinding`.
 */
export const ELECTRON_NATIVE_DIR = 'electron-native';
export const SQLITE_NODE_FILE = 'better_sqlite3.node';
