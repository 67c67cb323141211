/**
 * Build better-sqlite3 for this checkout's Electron into electron-native/, leaving node_modules'
 * build (for plain Node: tests, CLI, headless server) untouched. Needs the network (Electron's
 * headers or a prebuilt binary) and a C++ toolchain when no prebuilt binary matches.
 */
import { rebuild } from '@electron/rebuild';
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { ELECTRON_NATIVE_DIR, SQLITE_NODE_FILE } from '../src/main/native-binding';

const root = resolve(import.meta.dirname, '..');
const require = createRequire(join(root, 'package.json'));
const electronVersion = (JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')) as { version: string }).version;
const sqliteDir = dirname(require.resolve('better-sqlite3/package.json'));
const sqliteVersion = (JSON.parse(readFileSync(join(sqliteDir, 'package.json'), 'utf8')) as { version: string }).version;

const outDir = join(root, ELECTRON_NATIVE_DIR);
const tree = join(outDir, 'build-tree');
rmSync(tree, { recursive: true, force: true });
mkdirSync(join(tree, 'node_modules'), { recursive: true });
writeFileSync(
  join(tree, 'package.json'),
  JSON.stringify({ name: 'nps-electron-native', private: true, dependencies: { 'better-sqlite3': sqliteVersion } }, null, 2),
);
cpSync(sqliteDir, join(tree, 'node_modules', 'better-sqlite3'), {
  recursive: true,
  filter: (src) => !src.startsWith(join(sqliteDir, 'build')),
});

console.log(`building better-sqlite3 ${sqliteVersion} for Electron ${electronVersion} in ${tree}`);
await rebuild({ buildPath: tree, electronVersion, onlyModules: ['better-sqlite3'], force: true });
copyFileSync(join(tree, 'node_modules', 'better-sqlite3', 'build', 'Release', SQLITE_NODE_FILE), join(outDir, SQLITE_NODE_FILE));
rmSync(tree, { recursive: true, force: true });
console.log(`wrote ${join(outDir, SQLITE_NODE_FILE)}`);
