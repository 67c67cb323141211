import { app, BrowserWindow, ipcMain } from 'electron';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isHandlerName } from './service/handlers';
import { openService } from './service/index';

const here = fileURLToPath(new URL('.', import.meta.url));

app.whenReady().then(() => {
  const service = openService({ dataDir: app.getPath('userData') });
  ipcMain.handle('nps:call', (_event, name: string, args: unknown) => {
    if (!isHandlerName(name)) throw new Error(`unknown handler ${name}`);
    return service.invoke(name, args, { actor: 'ui' });
  });
  const win = new BrowserWindow({
    width: 1280,
    height: 800,
    webPreferences: { preload: join(here, '../preload/index.cjs'), contextIsolation: true, sandbox: true, nodeIntegration: false },
  });
  void win.loadFile(join(here, '../renderer/index.html'));
  app.on('will-quit', () => service.close());
});
