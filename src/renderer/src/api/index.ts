import type { ExplorerTarget, Progress } from '../../../shared/bridge';
import { StoreChange } from '../../../shared/changes';
import { contract, type HandlerInput, type HandlerName, type HandlerResult } from '../../../shared/contract';
import { currentSessionProblem, onSessionProblem, transport } from './transport';

export type { Progress } from '../../../shared/bridge';

/** A failure the service (or the way to it) reported: its code and the sentence naming the field. */
class ApiError extends Error {
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
  }
}

const BAD_ANSWER = -2;

/**
 * Call a handler of the service's map. The answer is parsed with the contract's own schema, so a
 * screen only ever sees data of the declared shape; any failure is an ApiError with a sentence.
 */
export async function call<N extends HandlerName>(
  name: N,
  input: HandlerInput<N>,
  opts: { onProgress?: (p: Progress) => void } = {},
): Promise<HandlerResult<N>> {
  const envelope = await transport.call(name, input, opts.onProgress);
  if (envelope.status !== 0) throw new ApiError(envelope.status, envelope.msg || `the service refused ${name} (${envelope.status})`);
  const parsed = contract[name].output.safeParse(envelope.data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError(
      BAD_ANSWER,
      `the service answered ${name} in an unexpected shape (${issue?.path.join('.') || 'answer'}: ${issue?.message ?? 'invalid'})`,
    );
  }
  return parsed.data as HandlerResult<N>;
}

/** The service's error code of a failed call (docs/api.md's table), or undefined for any other failure. */
export const errorCode = (err: unknown): number | undefined => (err instanceof ApiError ? err.code : undefined);

/** 3006: the ticket changed since the window showed it; nothing was changed. */
export const TICKET_CHANGED = 3006;

/**
 * Hear others' changes (a ticket changed, an import landed, a run finished: shared/changes.ts), as
 * the service pushes them; answers the way to stop. A word of an unexpected shape is heard as
 * `everything` (reload every view), never dropped.
 */
export function onStoreChange(listener: (change: StoreChange) => void): () => void {
  return transport.follow((raw) => {
    const parsed = StoreChange.safeParse(raw);
    listener(parsed.success ? parsed.data : { topic: 'everything', what: '', ids: [], actor: '', at: 0 });
  });
}

export function errorText(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}

const linkCache = new Map<string, Promise<string>>();

/** The explorer URL for a transaction or address, built by the service from the catalogue's template (https only). */
function explorerUrl(target: ExplorerTarget): Promise<string> {
  const key = `${target.chain_id}|${target.kind}|${target.value}`;
  let p = linkCache.get(key);
  if (!p) {
    p = call('app-explorer-link', target).then((r) => r.url);
    p.catch(() => linkCache.delete(key));
    linkCache.set(key, p);
  }
  return p;
}

/**
 * Save a chain's editable fields (only those given). Explorer links made from its old templates
 * are forgotten, so the next link uses what was saved.
 */
export async function updateChain(input: HandlerInput<'catalogue-chain-update'>): Promise<HandlerResult<'catalogue-chain-update'>> {
  const chain = await call('catalogue-chain-update', input);
  for (const key of linkCache.keys()) if (key.startsWith(`${chain.chain_id}|`)) linkCache.delete(key);
  return chain;
}

/** Save a token's editable fields (only those given). */
export const updateToken = (input: HandlerInput<'catalogue-token-update'>): Promise<HandlerResult<'catalogue-token-update'>> =>
  call('catalogue-token-update', input);

/** Open the explorer page: the system browser via the shell in Electron, a new tab in browser mode. */
export async function openExplorer(target: ExplorerTarget): Promise<void> {
  const url = await explorerUrl(target);
  await transport.openExplorer(target, url);
}

/** What to send for a file the user picked: its path when the service can read it there, else its text. */
export async function fileSource(file: File): Promise<{ path: string } | { name: string; text: string }> {
  const path = transport.pathForFile(file);
  if (path) return { path };
  return { name: file.name, text: await file.text() };
}

export const transportKind = transport.kind;

/**
 * Browser mode: why this window has no session (its link was used already, is from before the
 * service restarted, or its session ended), in the service's own sentence; undefined while it has
 * one. `subscribe` for React's useSyncExternalStore.
 */
export const windowSession = {
  problem: (): string | undefined => currentSessionProblem()?.msg,
  subscribe: onSessionProblem,
};
