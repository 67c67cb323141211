// electron-builder's beforePack hook (electron-builder.yml): no package for a platform and
// architecture whose better-sqlite3 is missing or was built for another Electron, better-sqlite3,
// platform or architecture. The rule itself is src/main/native-binding.ts, loaded through tsx.
import builder from 'electron-builder';
import { tsImport } from 'tsx/esm/api';

/** @param {import('electron-builder').BeforePackContext} context */
export default async function beforePack(context) {
  const { packageBindingProblem } = await tsImport('../src/main/native-binding.ts', import.meta.url);
  const platform = context.electronPlatformName === 'mas' ? 'darwin' : context.electronPlatformName;
  const problem = packageBindingProblem(context.packager.projectDir, { platform, arch: builder.Arch[context.arch] });
  if (problem) throw new Error(problem);
}
