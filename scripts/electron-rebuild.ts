/**
 * Build better-sqlite3 for this checkout's Electron into electron-native/<os>-<arch>/, with the
 * stamp that says what it was built for, leaving node_modules' build (for plain Node: tests, CLI,
 * headless server) untouched.
 *
 *   npm run electron:rebuild                                  # this machine's Electron
 *   npm run electron:rebuild -- --platform win32 --arch arm64 # another target of a package
 *
 * @electron/rebuild first downloads the binary better-sqlite3 publishes for that Electron, platform
 * and architecture; without one it compiles, which can only make one for this machine (a C++
 * toolchain, and Electron's headers from the network). A result that is not what was asked for is
 * refused here rather than packaged.
 */
import { rebuild } from '@electron/rebuild';
import { copyFileSync, cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { electronTarget, requireHere } from '../src/main/cli/electron-locate';
import { bindingDirIn, bindingProblem, neededIn, SQLITE_NODE_FILE, writeStamp } from '../src/main/native-binding';

const ARCHES = ['x64', 'arm64', 'ia32', 'armv7l'];
const PLATFORMS = ['linux', 'darwin', 'win32'];

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { platform: { type: 'string' }, arch: { type: 'string' } }, strict: true });
const host = electronTarget();
const target = { platform: values.platform ?? host.platform, arch: values.arch ?? (values.platform ? process.arch : host.arch) };
if (!PLATFORMS.includes(target.platform)) {
  console.error(`--platform: must be one of ${PLATFORMS.join(', ')}, got ${target.platform}`);
  process.exit(2);
}
if (!ARCHES.includes(target.arch)) {
  console.error(`--arch: must be one of ${ARCHES.join(', ')}, got ${target.arch}`);
  process.exit(2);
}
const needed = neededIn(root, target);
const sqliteDir = dirname(requireHere.resolve('better-sqlite3/package.json'));

const outDir = bindingDirIn(root, target);
const outFile = join(outDir, SQLITE_NODE_FILE);
// A copy of better-sqlite3 of its own, so node_modules' Node build is never touched.
const tree = join(root, 'electron-native', `build-tree-${target.platform}-${target.arch}`);
rmSync(tree, { recursive: true, force: true });
mkdirSync(join(tree, 'node_modules'), { recursive: true });
writeFileSync(
  join(tree, 'package.json'),
  JSON.stringify({ name: 'nps-electron-native', private: true, dependencies: { 'better-sqlite3': needed.better_sqlite3 } }, null, 2),
);
cpSync(sqliteDir, join(tree, 'node_modules', 'better-sqlite3'), {
  recursive: true,
  filter: (src) => !src.startsWith(join(sqliteDir, 'build')),
});

// npm's `nodedir` setting (npm_config_nodedir when npm runs this) points node-gyp at Node's own
// headers whatever the target, which makes a module Electron refuses to load: Electron's headers here.
for (const name of Object.keys(process.env)) if (name.toLowerCase() === 'npm_config_nodedir') delete process.env[name];
console.log(
  `building better-sqlite3 ${needed.better_sqlite3} for Electron ${needed.electron} on ${target.platform}-${target.arch} in ${tree}`,
);
try {
  await rebuild({
    buildPath: tree,
    electronVersion: needed.electron,
    platform: target.platform as NodeJS.Platform,
    arch: target.arch,
    onlyModules: ['better-sqlite3'],
    force: true,
  });
  mkdirSync(outDir, { recursive: true });
  rmSync(outFile, { force: true });
  copyFileSync(join(tree, 'node_modules', 'better-sqlite3', 'build', 'Release', SQLITE_NODE_FILE), outFile);
  writeStamp(outFile, needed);
} catch (err) {
  // One line last, for npm start and npm run package to repeat (node-gyp's own output is above it).
  console.error(
    `better-sqlite3 could not be built for Electron ${needed.electron} on ${target.platform}-${target.arch}: ${(err as Error).message.split('\n')[0]} ` +
      `(no prebuilt binary was found, and a compile needs Electron's headers from the network and a C++ toolchain)`,
  );
  process.exitCode = 1;
} finally {
  rmSync(tree, { recursive: true, force: true });
}
if (process.exitCode === 1) process.exit(1);
const problem = bindingProblem(outFile, needed);
if (problem) {
  rmSync(outDir, { recursive: true, force: true });
  console.error(
    `the build did not give what was asked for: ${problem}. No prebuilt binary could be downloaded for ${target.platform}-${target.arch}; build on such a machine.`,
  );
  process.exit(1);
}
console.log(`wrote ${outFile} and its stamp`);
