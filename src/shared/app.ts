import { z } from 'zod';
import { requiredString } from './primitives';

/** How the window reached the service: Electron's IPC, or the browser-mode /app/rpc door. */
export const AppMode = z.enum(['electron', 'browser', 'headless']);
export type AppMode = z.infer<typeof AppMode>;

export const ApiServerState = z.object({
  state: z.enum(['running', 'stopped', 'failed']),
  /** Base URL of the /nps API, e.g. http://127.0.0.1:8730/nps; null unless running. */
  base_url: z.string().nullable(),
  host: z.string().nullable(),
  port: z.number().int().nullable(),
  /** Why the server is not running, in one sentence (e.g. the port is taken). */
  error: z.string().nullable(),
});
export type ApiServerState = z.infer<typeof ApiServerState>;

export const AppInfo = z.object({
  version: z.string(),
  mode: AppMode,
  data_dir: z.string(),
  db_file: z.string(),
  api: ApiServerState,
});
export type AppInfo = z.infer<typeof AppInfo>;

const ExplorerLinkRequest = z.object({
  chain_id: requiredString(),
  kind: z.enum(['tx', 'address'], { error: 'must be tx or address' }),
  value: requiredString().regex(/^[A-Za-z0-9:_.-]+$/, { error: 'must be a transaction hash or address (letters, digits, : _ . -)' }),
});
type ExplorerLinkRequest = z.output<typeof ExplorerLinkRequest>;

const ExplorerLink = z.object({
  /** Always https:, built from the chain's catalogue template. */
  url: z.string(),
});
type ExplorerLink = z.infer<typeof ExplorerLink>;

/**
 * The named local user every ticket event of the desktop app and the CLI records; "" until set.
 * Each desktop's (or `serve`'s) own, kept in its data folder, never in the store.
 */
const AppUser = z.object({ name: z.string() });
export const UserName = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, { error: 'must not be empty' })
  .max(80, { error: 'must be at most 80 characters' });
const AppUserInput = z.object({ name: UserName });

export const appContract = {
  'app-user-get': { readOnly: true, input: z.object({}).strict(), output: AppUser },
  'app-user-set': { folderOnly: true, input: AppUserInput, output: AppUser },
  'app-info': { readOnly: true, input: z.object({}).strict(), output: AppInfo },
  'app-explorer-link': { readOnly: true, input: ExplorerLinkRequest, output: ExplorerLink },
};
