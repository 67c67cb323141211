import { copyFileSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindingDirIn, neededIn, SQLITE_NODE_FILE } from './native-binding';
import { electronBuildStandIn } from './native-binding.test-support';

/*
 * electron-builder.yml as electron-builder itself reads it: its own loader and schema, its own
 * fuse mapping, its own default Debian dependencies, its own macro expansion and the hook it runs.
 * Packaging needs Electron's binaries (network) and cannot run here; what it would do with this
 * configuration can be read back.
 */

const root = join(import.meta.dirname, '../..');
/** electron-builder's own app-builder-lib and what it depends on, as electron-builder resolves them. */
const builderRequire = createRequire(createRequire(join(root, 'package.json')).resolve('electron-builder/package.json'));
const libRequire = createRequire(builderRequire.resolve('app-builder-lib'));
const HOOK = 'scripts/before-pack.mjs';

interface Config {
  asar?: boolean;
  beforePack?: string;
  electronFuses?: Record<string, boolean>;
  linux?: { target?: string[] };
  deb?: { depends?: string[] };
  extraResources?: { from: string; to: string; filter?: string[] }[];
}

let config: Config;

beforeAll(async () => {
  const { getConfig, validateConfiguration } = builderRequire('app-builder-lib/out/util/config/config') as {
    getConfig(dir: string, file: string, options: null): Promise<Config>;
    validateConfiguration(config: Config, logger: unknown): Promise<void>;
  };
  const { DebugLogger } = builderRequire('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };
  config = await getConfig(root, 'electron-builder.yml', null);
  // electron-builder's schema: a misspelt key (runAsNod) or a wrong type fails here, not at release.
  await validateConfiguration(config, new DebugLogger(false));
});

describe('the package', () => {
  it('burns the fuses: no run-as-node, no NODE_OPTIONS, no --inspect, only its own app.asar, checked', async () => {
    const { PlatformPackager } = builderRequire('app-builder-lib') as {
      PlatformPackager: { prototype: { generateFuseConfig(fuses: unknown): Promise<Record<string, unknown>> } };
    };
    const { FuseV1Options } = libRequire('@electron/fuses') as { FuseV1Options: Record<string, number> };
    // The wire electron-builder hands @electron/fuses.
    const wire = await PlatformPackager.prototype.generateFuseConfig.call(null, config.electronFuses);
    const named = Object.fromEntries(
      Object.entries(wire)
        .filter(([k]) => /^\d+$/.test(k))
        .map(([k, v]) => [Object.keys(FuseV1Options).find((name) => FuseV1Options[name] === Number(k)), v]),
    );
    expect(named).toEqual({
      RunAsNode: false,
      EnableNodeOptionsEnvironmentVariable: false,
      EnableNodeCliInspectArguments: false,
      EnableEmbeddedAsarIntegrityValidation: true,
      OnlyLoadAppFromAsar: true,
    });
    // The app is an asar for the last two to mean anything.
    expect(config.asar).not.toBe(false);
  });

  it('depends on what electron-builder’s .deb would, and on what the app adds (xdg-utils, ALSA)', () => {
    const FpmTarget = (libRequire('./targets/FpmTarget') as { default: { prototype: { getDefaultDepends(t: string): string[] } } }).default;
    const defaults = FpmTarget.prototype.getDefaultDepends('deb');
    expect(defaults.length).toBeGreaterThan(0);
    expect(config.deb?.depends).toEqual(expect.arrayContaining(defaults));
    expect(config.deb?.depends).toEqual(expect.arrayContaining(['xdg-utils', 'libasound2t64 | libasound2']));
  });

  it('offers a .deb on Linux (its AppArmor profile lets the sandbox run on Ubuntu 24.04), no AppImage', () => {
    expect(config.linux?.target).toEqual(['deb']);
  });

  it('carries each target’s own better-sqlite3 and its stamp, from the folder electron-native/<os>-<arch>', () => {
    const { expandMacro } = builderRequire('app-builder-lib/out/util/macroExpander') as {
      expandMacro(pattern: string, arch: string, appInfo: unknown, extra: Record<string, string>): string;
    };
    const binding = config.extraResources?.find((r) => r.to === 'electron-native');
    expect(binding?.filter).toEqual([SQLITE_NODE_FILE, 'stamp.json']);
    // ${os} as electron-builder's packagers fill it in (buildConfigurationKey: linux, mac, win).
    for (const [os, platform] of [
      ['linux', 'linux'],
      ['mac', 'darwin'],
      ['win', 'win32'],
    ] as const) {
      for (const arch of ['x64', 'arm64']) {
        expect(expandMacro(binding!.from, arch, {}, { os })).toBe(relative(root, bindingDirIn(root, { platform, arch })));
      }
    }
  });
});

describe('the beforePack hook', () => {
  const project = mkdtempSync(join(tmpdir(), 'nps-package-'));
  const { Arch } = builderRequire('builder-util') as { Arch: Record<string, number> };
  let hook: (context: unknown) => Promise<void>;
  const context = (electronPlatformName: string, arch: string) => ({
    electronPlatformName,
    arch: Arch[arch],
    packager: { projectDir: project },
  });

  beforeAll(async () => {
    // The module electron-builder loads for the hook (app-builder-lib's resolveFunction: its default export).
    hook = ((await import(pathToFileURL(join(root, HOOK)).href)) as { default: typeof hook }).default;
    // A checkout: its dependencies (the installed versions a binding must match) and its bindings.
    symlinkSync(join(root, 'node_modules'), join(project, 'node_modules'), 'dir');
    copyFileSync(join(root, 'package.json'), join(project, 'package.json'));
  });
  afterAll(() => rmSync(project, { recursive: true, force: true }));

  it('is the hook electron-builder.yml names', () => {
    expect(config.beforePack).toBe(HOOK);
  });

  it('refuses a target without its binding, saying what to run', async () => {
    await expect(hook(context('win32', 'arm64'))).rejects.toThrow(
      /^cannot package for win32-arm64: there is no better-sqlite3 built for Electron [\d.]+, better-sqlite3 [\d.]+, win32-arm64 \(.+ is missing\); run npm run electron:rebuild -- --platform win32 --arch arm64 \(npm run package runs it itself\)$/,
    );
  });

  it('refuses a binding left from before an Electron bump, and lets a current one through', async () => {
    const target = { platform: process.platform, arch: process.arch };
    const file = join(bindingDirIn(project, target), SQLITE_NODE_FILE);
    electronBuildStandIn(file, neededIn(root, target), { electron: '44.0.0' });
    await expect(hook(context(process.platform, process.arch))).rejects.toThrow(/was built for Electron 44\.0\.0/);
    electronBuildStandIn(file, neededIn(root, target));
    await expect(hook(context(process.platform, process.arch))).resolves.toBeUndefined();
  });

  it('refuses a universal macOS package: bindings are per architecture', async () => {
    await expect(hook(context('darwin', 'universal'))).rejects.toThrow(/^cannot package a universal macOS app/);
  });
});
