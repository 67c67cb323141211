import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SQLITE_NODE_FILE, writeStamp, type BindingNeeds } from './native-binding';

const root = join(import.meta.dirname, '../..');

/** better-sqlite3 as node_modules has it: built for this Node, a real native module of this machine. */
const nodeBuiltBinding = join(
  dirname(createRequire(join(root, 'package.json')).resolve('better-sqlite3/package.json')),
  'build',
  'Release',
  SQLITE_NODE_FILE,
);

/**
 * A stand-in for better-sqlite3 built for Electron, where only its checks run (no Electron loads
 * it here): this machine's real binary, with the Node module version it registers for set to the
 * one `needs` names (as a build against Electron's headers registers), and stamped with `stamp`.
 */
export function electronBuildStandIn(file: string, needs: BindingNeeds, stamp: Partial<BindingNeeds> = {}): string {
  const bytes = readFileSync(nodeBuiltBinding);
  const node = `node_register_module_v${process.versions.modules}`;
  const electron = `node_register_module_v${needs.abi ?? process.versions.modules}`;
  if (node.length !== electron.length) throw new Error(`cannot stand in for module version ${needs.abi} with ${process.versions.modules}`);
  let at = bytes.indexOf(node, 0, 'latin1');
  while (at >= 0) {
    bytes.write(electron, at, 'latin1');
    at = bytes.indexOf(node, at + node.length, 'latin1');
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, bytes);
  writeStamp(file, { ...needs, ...stamp });
  return file;
}

/** This machine's binary as node_modules has it, stamped with `stamp`. */
export function stampedCopy(file: string, stamp: BindingNeeds): string {
  mkdirSync(dirname(file), { recursive: true });
  copyFileSync(nodeBuiltBinding, file);
  writeStamp(file, stamp);
  return file;
}
