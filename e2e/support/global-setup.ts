import { ensureBuilt } from '../../scripts/build.mjs';
import { electronSqliteBinding, electronSqliteNeeds, locateElectron } from '../../src/main/cli/electron-locate';
import { bindingProblem } from '../../src/main/native-binding';

/** Build what the journeys run (the one build serves browser mode and Electron alike), when a source is newer. */
export default function globalSetup(): void {
  if (process.env.E2E_ELECTRON === '1') {
    // Asked for Electron explicitly: say precisely what is missing rather than quietly testing something else.
    if (!locateElectron().path)
      throw new Error('E2E_ELECTRON=1 but no Electron binary is installed (npx install-electron, with network access)');
    const problem = bindingProblem(electronSqliteBinding(), electronSqliteNeeds());
    if (problem)
      throw new Error(`E2E_ELECTRON=1 but better-sqlite3 is not right for this Electron (${problem}): run npm run electron:rebuild`);
  }
  ensureBuilt({ log: (line) => process.stdout.write(line + '\n') });
}
