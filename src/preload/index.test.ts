import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { NpsBridge } from '../shared/bridge';

/* The preload against a stand-in for Electron's renderer-side modules: what it exposes, and how it speaks IPC. */

const exposed = new Map<string, unknown>();
const invoke = vi.fn();
const listeners = new Map<string, ((event: unknown, ...args: unknown[]) => void)[]>();

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, value: unknown) => exposed.set(key, value) },
  ipcRenderer: {
    invoke: (...args: unknown[]) => invoke(...args),
    on: (channel: string, fn: (event: unknown, ...args: unknown[]) => void) =>
      listeners.set(channel, [...(listeners.get(channel) ?? []), fn]),
    removeListener: (channel: string, fn: (event: unknown, ...args: unknown[]) => void) =>
      listeners.set(
        channel,
        (listeners.get(channel) ?? []).filter((f) => f !== fn),
      ),
  },
  webUtils: { getPathForFile: (file: { path?: string }) => file.path ?? '' },
}));

let nps: NpsBridge;
beforeAll(async () => {
  await import('./index');
  nps = exposed.get('nps') as NpsBridge;
});

describe('window.nps', () => {
  it('exposes only call, openExplorer, pathForFile and onChange', () => {
    expect([...exposed.keys()]).toEqual(['nps']);
    expect(Object.keys(nps).sort()).toEqual(['call', 'onChange', 'openExplorer', 'pathForFile']);
  });

  it('passes a call through one channel and hands back the envelope', async () => {
    invoke.mockResolvedValueOnce({ status: 0, data: { ok: 1 }, msg: '' });
    expect(await nps.call('app-info', {})).toEqual({ status: 0, data: { ok: 1 }, msg: '' });
    expect(invoke).toHaveBeenLastCalledWith('nps:call', 'app-info', {}, null);
  });

  it('routes progress events of its own call to the callback, and stops listening after', async () => {
    const seen: unknown[] = [];
    let release: (v: unknown) => void = () => undefined;
    invoke.mockReturnValueOnce(new Promise((r) => (release = r)));
    const pending = nps.call('ledger-import', { source: { path: '/x.csv' } }, (p) => seen.push(p));
    const callId = invoke.mock.lastCall![3] as string;
    expect(callId).toMatch(/^c\d+$/);
    for (const fn of listeners.get('nps:progress')!) {
      fn({}, 'someone-else', { done: 99 });
      fn({}, callId, { done: 5, total: 10 });
    }
    release({ status: 0, data: null, msg: '' });
    await pending;
    expect(seen).toEqual([{ done: 5, total: 10 }]);
    expect(listeners.get('nps:progress')).toEqual([]);
  });

  it('asks the main process to open explorer links (it builds the URL itself)', async () => {
    invoke.mockResolvedValueOnce({ status: 0, data: { url: 'https://etherscan.io/tx/0x1' }, msg: '' });
    await nps.openExplorer({ chain_id: 'ETH', kind: 'tx', value: '0x1' });
    expect(invoke).toHaveBeenLastCalledWith('nps:open-explorer', { chain_id: 'ETH', kind: 'tx', value: '0x1' });
  });

  it('gives a dropped file’s path, or an empty string when it has none', () => {
    expect(nps.pathForFile({ path: '/home/a/ledger.csv' })).toBe('/home/a/ledger.csv');
    expect(nps.pathForFile({})).toBe('');
  });

  it("hands the service's pushed changes to the listener, until told to stop", () => {
    const heard: unknown[] = [];
    const stop = nps.onChange((change) => heard.push(change));
    const change = { topic: 'tickets', what: 'Ticket 01a21de9 resolved', ids: ['01a21de9'], actor: 'Anna', at: 1 };
    for (const fn of listeners.get('nps:change') ?? []) fn({}, change);
    expect(heard).toEqual([change]);
    stop();
    expect(listeners.get('nps:change')).toEqual([]);
  });
});
