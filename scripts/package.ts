/**
 * `npm run package [-- electron-builder's flags]`: the desktop app's packages, each with
 * better-sqlite3 built for its own platform and architecture.
 *
 *   npm run package                      # this machine's platform and architecture
 *   npm run package -- --dir             # unpacked only (dist/<os>-unpacked): the release check's
 *   npm run package -- --mac --x64 --arm64
 *
 * Before electron-builder runs, every target's binding is checked against its stamp and built
 * again (npm run electron:rebuild; a prebuilt binary for another platform) when missing or stale;
 * a target that cannot get one stops the packaging with the reason. electron-builder's beforePack
 * hook checks again, so `npx electron-builder` alone cannot ship a package without it either.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { ensureBuilt } from './build.mjs';
import { requireHere } from '../src/main/cli/electron-locate';
import { packageBindingProblem } from '../src/main/native-binding';

const root = resolve(import.meta.dirname, '..');
const args = process.argv.slice(2);

const PLATFORM_FLAGS: Record<string, string> = {
  '--linux': 'linux',
  '-l': 'linux',
  '--win': 'win32',
  '--windows': 'win32',
  '-w': 'win32',
  '--mac': 'darwin',
  '--macos': 'darwin',
  '-m': 'darwin',
};
const ARCH_FLAGS = ['--x64', '--arm64', '--ia32', '--armv7l', '--universal'];

// What electron-builder packs: the platforms and architectures named, else this machine's (process.arch, its default).
const platforms = [...new Set(args.filter((a) => a in PLATFORM_FLAGS).map((a) => PLATFORM_FLAGS[a]!))];
const arches = args.filter((a) => ARCH_FLAGS.includes(a)).map((a) => a.slice(2));
const targets = (platforms.length ? platforms : [process.platform]).flatMap((platform) =>
  (arches.length ? arches : [process.arch]).map((arch) => ({ platform, arch })),
);

ensureBuilt({ force: true, log: (line) => console.log(line) });

const tsx = join(dirname(requireHere.resolve('tsx/package.json')), 'dist', 'cli.mjs');
for (const target of targets) {
  if (!packageBindingProblem(root, target)) continue;
  const rebuilt = spawnSync(process.execPath, [tsx, 'scripts/electron-rebuild.ts', '--platform', target.platform, '--arch', target.arch], {
    cwd: root,
    stdio: 'inherit',
  });
  const problem = packageBindingProblem(root, target);
  if (problem) {
    console.error(rebuilt.status === 0 ? problem : `${problem} (the build above failed)`);
    process.exit(1);
  }
}

const builder = join(dirname(requireHere.resolve('electron-builder/package.json')), 'cli.js');
const r = spawnSync(process.execPath, [builder, '--config', 'electron-builder.yml', ...args], { cwd: root, stdio: 'inherit' });
process.exit(r.status ?? 1);
