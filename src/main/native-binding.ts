import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/*
 * better-sqlite3 built for Electron lives apart from the one built for this Node (tests, CLI), so
 * one checkout runs both. A native binding is made for one Electron (its ABI), one better-sqlite3
 * (its C++ side must match the JavaScript side) and one platform and architecture; the stamp kept
 * beside it says which, so a bump of either package, another architecture (Apple Silicon under
 * Rosetta) or a package for another target is seen before the store is opened, not as a crash.
 *
 *   electron-native/<os>-<arch>/better_sqlite3.node   (os as electron-builder names it: linux, mac, win)
 *   electron-native/<os>-<arch>/stamp.json
 *
 * `npm run electron:rebuild` writes them, `npm start` and `npm run package` rebuild what is
 * missing or stale, and the packaged app carries its target's pair as resources/electron-native/.
 */
export const ELECTRON_NATIVE_DIR = 'electron-native';
export const SQLITE_NODE_FILE = 'better_sqlite3.node';
const STAMP_FILE = 'stamp.json';

/** What a binding was built for (its stamp), or what the runtime that loads it needs. */
export interface BindingStamp {
  electron: string;
  better_sqlite3: string;
  platform: string;
  arch: string;
}

/** What a runtime needs of a binding: what its stamp must say, and the Node module version (ABI) it loads, when known. */
export interface BindingNeeds extends BindingStamp {
  abi?: string;
}

/** electron-builder's name for a platform, as its `${os}` macro writes it. */
function builderOs(platform: string): 'linux' | 'mac' | 'win' {
  if (platform === 'linux') return 'linux';
  if (platform === 'darwin') return 'mac';
  if (platform === 'win32') return 'win';
  throw new Error(`no desktop package is made for the platform ${platform} (linux, darwin or win32)`);
}

/** The folder a target's binding has in a checkout: electron-native/linux-x64, electron-native/mac-arm64, … */
export const bindingDirIn = (root: string, target: { platform: string; arch: string }): string =>
  join(root, ELECTRON_NATIVE_DIR, `${builderOs(target.platform)}-${target.arch}`);

/** The version of an installed package, as the code in `from` would load it. */
export function installedVersion(from: string, name: 'electron' | 'better-sqlite3'): string {
  const require = createRequire(join(from, 'package.json'));
  return (JSON.parse(readFileSync(require.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version;
}

/** The Node module version (ABI) an Electron loads, as @electron/rebuild's own table (node-abi) has it; undefined for one it does not know. */
function electronAbi(root: string, electron: string): string | undefined {
  try {
    const rebuild = createRequire(createRequire(join(root, 'package.json')).resolve('@electron/rebuild'));
    return (rebuild('node-abi') as { getAbi(version: string, runtime: string): string }).getAbi(electron, 'electron');
  } catch {
    return undefined;
  }
}

/** What a binding must have been built for to serve `target` from the checkout at `root` (its installed Electron and better-sqlite3). */
export function neededIn(root: string, target: { platform: string; arch: string }): BindingNeeds {
  const electron = installedVersion(root, 'electron');
  const abi = electronAbi(root, electron);
  return {
    electron,
    better_sqlite3: installedVersion(root, 'better-sqlite3'),
    platform: target.platform,
    arch: target.arch,
    ...(abi ? { abi } : {}),
  };
}

export function writeStamp(bindingFile: string, stamp: BindingStamp): void {
  mkdirSync(dirname(bindingFile), { recursive: true });
  const { electron, better_sqlite3, platform, arch } = stamp;
  writeFileSync(join(dirname(bindingFile), STAMP_FILE), JSON.stringify({ electron, better_sqlite3, platform, arch }, null, 2) + '\n');
}

function readStamp(bindingFile: string): BindingStamp | undefined {
  try {
    const value = JSON.parse(readFileSync(join(dirname(bindingFile), STAMP_FILE), 'utf8')) as Record<string, unknown>;
    const fields = ['electron', 'better_sqlite3', 'platform', 'arch'] as const;
    return fields.every((f) => typeof value[f] === 'string') ? (value as unknown as BindingStamp) : undefined;
  } catch {
    return undefined;
  }
}

const ELF_MACHINES: Record<number, string> = { 3: 'ia32', 40: 'armv7l', 62: 'x64', 183: 'arm64' };
const MACHO_CPUS: Record<number, string> = { 0x01000007: 'x64', 0x0100000c: 'arm64' };
const PE_MACHINES: Record<number, string> = { 0x14c: 'ia32', 0x8664: 'x64', 0xaa64: 'arm64' };

/**
 * The platform and architecture an executable or native module is made for, read from its header:
 * ELF (linux), Mach-O (darwin; arch universal for a fat binary) or PE (win32); undefined when it is
 * none of these (a script, a file too short). It tells the truth where the process does not: Node
 * under Rosetta says x64 while the Electron it downloaded may be arm64, and a compile for "another
 * platform" quietly makes one for this machine.
 */
export function binaryKind(file: string): { platform: string; arch: string | undefined } | undefined {
  let head: Buffer;
  try {
    const fd = openSync(file, 'r');
    try {
      head = Buffer.alloc(4096);
      head = head.subarray(0, readSync(fd, head, 0, head.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return undefined;
  }
  if (head.length >= 20 && head.readUInt32BE(0) === 0x7f454c46) {
    const machine = head[5] === 2 ? head.readUInt16BE(18) : head.readUInt16LE(18);
    return { platform: 'linux', arch: ELF_MACHINES[machine] };
  }
  if (head.length >= 8 && head.readUInt32LE(0) === 0xfeedfacf) return { platform: 'darwin', arch: MACHO_CPUS[head.readUInt32LE(4)] };
  if (head.length >= 4 && head.readUInt32BE(0) === 0xcafebabe) return { platform: 'darwin', arch: 'universal' };
  if (head.length >= 0x40 && head.toString('latin1', 0, 2) === 'MZ') {
    const pe = head.readUInt32LE(0x3c);
    if (pe + 6 <= head.length && head.readUInt32BE(pe) === 0x50450000)
      return { platform: 'win32', arch: PE_MACHINES[head.readUInt16LE(pe + 4)] };
  }
  return undefined;
}

/** The architecture binaryKind reads, alone. */
export const binaryArch = (file: string): string | undefined => binaryKind(file)?.arch;

/**
 * The Node module version a native module was compiled for, from the symbol it registers with
 * (node_register_module_v<N>); undefined for a Node-API module (any version loads it) or a file
 * that is none. A build for Electron made with Node's headers (npm's `nodedir` setting makes
 * node-gyp use them whatever the target) has Node's number, and Electron refuses it at load.
 */
export function binaryAbi(file: string): string | undefined {
  try {
    return /node_register_module_v(\d+)/.exec(readFileSync(file).toString('latin1'))?.[1];
  } catch {
    return undefined;
  }
}

const describe = (s: BindingStamp): string => `Electron ${s.electron}, better-sqlite3 ${s.better_sqlite3}, ${s.platform}-${s.arch}`;

/**
 * Why the binding at `bindingFile` cannot serve the runtime `needed` describes, in one clause, or
 * undefined when it can: missing, without a stamp, stamped for another Electron, better-sqlite3,
 * platform or architecture, or a file whose header names another platform or architecture than its
 * stamp, or that was compiled for another Node module version than the runtime loads.
 * The caller adds what to run, which differs between a checkout and an installed app.
 */
export function bindingProblem(bindingFile: string, needed: BindingNeeds): string | undefined {
  if (!existsSync(bindingFile)) return `there is no better-sqlite3 built for ${describe(needed)} (${bindingFile} is missing)`;
  const stamp = readStamp(bindingFile);
  if (!stamp) return `${bindingFile} has no readable ${STAMP_FILE} beside it, so what it was built for is unknown`;
  const fields = ['electron', 'better_sqlite3', 'platform', 'arch'] as const;
  if (fields.some((f) => stamp[f] !== needed[f])) return `${bindingFile} was built for ${describe(stamp)}; this needs ${describe(needed)}`;
  const actual = binaryKind(bindingFile);
  if (actual && (actual.platform !== needed.platform || actual.arch !== needed.arch))
    return `${bindingFile} is a ${actual.platform}-${actual.arch ?? 'unknown'} binary although its stamp says ${needed.platform}-${needed.arch}`;
  const abi = needed.abi === undefined ? undefined : binaryAbi(bindingFile);
  if (abi !== undefined && abi !== needed.abi)
    return `${bindingFile} was compiled for Node module version ${abi} although its stamp says Electron ${needed.electron}, which loads version ${needed.abi} (built with Node's headers, as npm's nodedir setting makes node-gyp do)`;
  return undefined;
}

/**
 * Why no package can be made for `target` from the checkout at `root` (its binding missing or
 * stale), with what to run; undefined when its binding is right. electron-builder's beforePack
 * hook (scripts/before-pack.mjs) refuses with it, so no package ever ships without its binding.
 */
export function packageBindingProblem(root: string, target: { platform: string; arch: string }): string | undefined {
  if (target.arch === 'universal')
    return 'cannot package a universal macOS app: better-sqlite3 is built per architecture here; package --x64 and --arm64 apart';
  const problem = bindingProblem(join(bindingDirIn(root, target), SQLITE_NODE_FILE), neededIn(root, target));
  return (
    problem &&
    `cannot package for ${target.platform}-${target.arch}: ${problem}; run npm run electron:rebuild -- --platform ${target.platform} --arch ${target.arch} (npm run package runs it itself)`
  );
}
