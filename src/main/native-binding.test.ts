import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  binaryAbi,
  binaryArch,
  binaryKind,
  bindingDirIn,
  bindingProblem,
  installedVersion,
  neededIn,
  SQLITE_NODE_FILE,
  writeStamp,
  type BindingStamp,
} from './native-binding';

const root = join(import.meta.dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'nps-binding-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The better-sqlite3 binary this Node loads: a real native module of this machine's architecture. */
const realBinding = join(
  dirname(createRequire(join(root, 'package.json')).resolve('better-sqlite3/package.json')),
  'build',
  'Release',
  SQLITE_NODE_FILE,
);

const needed: BindingStamp = {
  electron: installedVersion(root, 'electron'),
  better_sqlite3: installedVersion(root, 'better-sqlite3'),
  platform: process.platform,
  arch: process.arch,
};

/** A binding folder as `npm run electron:rebuild` leaves it: the binary, and its stamp when given. */
function bindingWith(name: string, stamp?: BindingStamp): string {
  const file = join(work, name, SQLITE_NODE_FILE);
  mkdirSync(dirname(file), { recursive: true });
  copyFileSync(realBinding, file);
  if (stamp) writeStamp(file, stamp);
  return file;
}

describe('a binding’s header', () => {
  it('names the architecture of real binaries: this Node and its better-sqlite3', () => {
    expect(binaryArch(process.execPath)).toBe(process.arch);
    expect(binaryArch(realBinding)).toBe(process.arch);
  });

  it('reads Mach-O and PE headers, and a macOS fat binary as universal', () => {
    // The first bytes of each format as its loader defines them (mach-o/loader.h, the PE/COFF spec).
    const macho = (cpu: number) => {
      const b = Buffer.alloc(32);
      b.writeUInt32LE(0xfeedfacf, 0);
      b.writeUInt32LE(cpu, 4);
      return b;
    };
    const pe = (machine: number) => {
      const b = Buffer.alloc(0x100);
      b.write('MZ', 0, 'latin1');
      b.writeUInt32LE(0x80, 0x3c);
      b.writeUInt32BE(0x50450000, 0x80);
      b.writeUInt16LE(machine, 0x84);
      return b;
    };
    const fat = Buffer.alloc(16);
    fat.writeUInt32BE(0xcafebabe, 0);
    const cases: [string, Buffer, string | undefined][] = [
      ['Electron.arm64', macho(0x0100000c), 'arm64'],
      ['Electron.x64', macho(0x01000007), 'x64'],
      ['Electron.universal', fat, 'universal'],
      ['electron-arm64.exe', pe(0xaa64), 'arm64'],
      ['electron-x64.exe', pe(0x8664), 'x64'],
      ['electron-ia32.exe', pe(0x14c), 'ia32'],
      ['a-script', Buffer.from('#!/usr/bin/env node\n'), undefined],
    ];
    for (const [name, bytes, arch] of cases) {
      writeFileSync(join(work, name), bytes);
      expect(binaryArch(join(work, name)), name).toBe(arch);
    }
    expect(binaryKind(join(work, 'Electron.arm64'))?.platform).toBe('darwin');
    expect(binaryKind(join(work, 'electron-x64.exe'))?.platform).toBe('win32');
    expect(binaryKind(realBinding)?.platform).toBe(process.platform);
    expect(binaryArch(join(work, 'no-such-file'))).toBeUndefined();
  });
});

describe('the stamp beside a binding', () => {
  it('accepts a binding stamped for this Electron, better-sqlite3, platform and architecture', () => {
    expect(bindingProblem(bindingWith('right', needed), needed)).toBeUndefined();
  });

  it('refuses a missing binding, naming what it should have been built for', () => {
    expect(bindingProblem(join(work, 'none', SQLITE_NODE_FILE), needed)).toBe(
      `there is no better-sqlite3 built for Electron ${needed.electron}, better-sqlite3 ${needed.better_sqlite3}, ${needed.platform}-${needed.arch} (${join(work, 'none', SQLITE_NODE_FILE)} is missing)`,
    );
  });

  it('refuses a binding without a stamp: what it was built for is unknown', () => {
    const file = bindingWith('unstamped');
    expect(bindingProblem(file, needed)).toBe(`${file} has no readable stamp.json beside it, so what it was built for is unknown`);
  });

  it('refuses a binding after an Electron bump, a better-sqlite3 bump, or for another platform or architecture', () => {
    const bumps: [string, Partial<BindingStamp>][] = [
      ['electron', { electron: '44.0.0' }],
      ['sqlite', { better_sqlite3: '11.0.0' }],
      ['platform', { platform: process.platform === 'darwin' ? 'linux' : 'darwin' }],
      ['arch', { arch: process.arch === 'arm64' ? 'x64' : 'arm64' }],
    ];
    for (const [name, change] of bumps) {
      const built = { ...needed, ...change };
      const file = bindingWith(name, built);
      expect(bindingProblem(file, needed), name).toBe(
        `${file} was built for Electron ${built.electron}, better-sqlite3 ${built.better_sqlite3}, ${built.platform}-${built.arch}; ` +
          `this needs Electron ${needed.electron}, better-sqlite3 ${needed.better_sqlite3}, ${needed.platform}-${needed.arch}`,
      );
    }
  });

  it('refuses a binary whose header contradicts its stamp (a copy from another machine)', () => {
    const other = process.arch === 'arm64' ? 'x64' : 'arm64';
    const file = bindingWith('lying', { ...needed, arch: other });
    expect(bindingProblem(file, { ...needed, arch: other })).toBe(
      `${file} is a ${process.platform}-${process.arch} binary although its stamp says ${process.platform}-${other}`,
    );
    // A "cross-platform" compile that quietly made a binary for this machine.
    const elsewhere = process.platform === 'win32' ? 'linux' : 'win32';
    const copy = bindingWith('not-for-there', { ...needed, platform: elsewhere });
    expect(bindingProblem(copy, { ...needed, platform: elsewhere })).toBe(
      `${copy} is a ${process.platform}-${process.arch} binary although its stamp says ${elsewhere}-${process.arch}`,
    );
  });

  it('refuses a binary compiled for another Node module version than the runtime loads (Node’s headers, npm’s nodedir)', () => {
    const file = bindingWith('node-headers', needed);
    // This Node's own module version: what a build with its headers registers for.
    expect(bindingProblem(file, { ...needed, abi: process.versions.modules })).toBeUndefined();
    const electronAbi = String(Number(process.versions.modules) + 23);
    expect(bindingProblem(file, { ...needed, abi: electronAbi })).toBe(
      `${file} was compiled for Node module version ${process.versions.modules} although its stamp says Electron ${needed.electron}, ` +
        `which loads version ${electronAbi} (built with Node's headers, as npm's nodedir setting makes node-gyp do)`,
    );
    expect(binaryAbi(file)).toBe(process.versions.modules);
  });

  it('knows the module version the installed Electron loads, as @electron/rebuild does', () => {
    expect(neededIn(root, { platform: process.platform, arch: process.arch }).abi).toMatch(/^\d+$/);
  });

  it('keeps each target in a folder of its own, named as electron-builder names the platform', () => {
    expect(bindingDirIn('/r', { platform: 'darwin', arch: 'arm64' })).toBe(join('/r', 'electron-native', 'mac-arm64'));
    expect(bindingDirIn('/r', { platform: 'win32', arch: 'x64' })).toBe(join('/r', 'electron-native', 'win-x64'));
    expect(bindingDirIn('/r', { platform: 'linux', arch: 'x64' })).toBe(join('/r', 'electron-native', 'linux-x64'));
    expect(() => bindingDirIn('/r', { platform: 'freebsd', arch: 'x64' })).toThrow(/no desktop package is made for the platform freebsd/);
  });
});
