import type { Envelope } from '../../../shared/bridge';
import { ErrorCodes } from '../../../shared/errors';
import type { CallMeta } from '../context';
import { ServiceError, storeBusy } from '../errors';
import { invokeHandler, isHandlerName, type Handlers } from '../handlers';
import { answerFor, sayFor } from '../said';

/**
 * A call from the window (IPC or the /app/rpc door): the name checked against the map, the input
 * validated by the contract, the answer or the failure as an envelope. Internal errors are logged
 * here and reach the window as one sentence, never a stack; `logPlace` says where that log really
 * is ("the log in /home/…/logs"), so the sentence sends the user there.
 */
export async function callForWindow(
  handlers: Handlers,
  name: unknown,
  input: unknown,
  meta: CallMeta,
  log: (line: string) => void,
  logPlace?: string,
): Promise<Envelope> {
  if (typeof name !== 'string' || !isHandlerName(name)) {
    return { status: ErrorCodes.NOT_FOUND, data: null, msg: `no such handler: ${String(name)}` };
  }
  try {
    const data = await invokeHandler(handlers, name, input ?? {}, meta);
    // How to give something is said as the window says it: its screen, field or button, not a flag.
    return { status: ErrorCodes.OK, data: answerFor(data, 'window'), msg: '' };
  } catch (err) {
    const known = err instanceof ServiceError ? err : storeBusy(err);
    if (known) return { status: known.code, data: null, msg: sayFor(known.message, 'window') };
    log(`internal error in ${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    return {
      status: ErrorCodes.INTERNAL,
      data: null,
      msg: `internal error; the details are in ${logPlace ?? 'the service log'}`,
    };
  }
}

/** Progress at a few updates a second; the first and the last always go out. */
export function throttleProgress(send: NonNullable<CallMeta['onProgress']>, everyMs = 100): NonNullable<CallMeta['onProgress']> {
  let last = 0;
  return (p) => {
    const now = Date.now();
    const final = p.total !== undefined && p.done >= p.total;
    if (final || now - last >= everyMs) {
      last = now;
      send(p);
    }
  };
}
