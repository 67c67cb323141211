import { availableParallelism } from 'node:os';
import { ErrorCodes } from '../../../shared/errors';
import { ServiceError } from '../errors';

/*
 * Admission control (docs/api.md, "Admission control and imports"): the API takes at most so much
 * verification work at once, and a request beyond the bound is refused at once with 4003 and
 * Retry-After rather than queued, so a burst of clients never makes every client (and new
 * connections) wait. A request counts from its arrival, before its body is read, to its answer:
 * the service answers requests one event-loop turn at a time, so a burst waits in front of the
 * handler, where counting in the handler would never see it. The desktop window's calls come over
 * IPC or the browser door and are never counted here, so they never wait behind API clients.
 *
 * A refused request's connection is closed once the answer is sent (Connection: close). Node 20's
 * libuv takes one new connection per turn of the event loop, and a turn handles every request
 * that has arrived on a connection already taken: clients that ignore Retry-After and send again
 * at once on a kept-alive connection made each turn longer the more of them were connected, and
 * a burst's last connections waited seconds to be taken (docs/benchmarks.md, "Load"). Closed,
 * a refused client comes back through the listening socket's queue, behind the others, and
 * the turns stay short (docs/benchmarks.md, "Load").
 */

/** Verification requests (up to 1,000 claims each) in flight per core: enough to keep both threads busy. */
const REQUESTS_PER_CORE = 2;

export const defaultAdmissionBound = (): number => availableParallelism() * REQUESTS_PER_CORE;

/**
 * Import jobs (imports, previews, undos: each holds the store's write lock while it runs) the
 * command line's door takes at once, running or waiting for the lock: one per core. The window's
 * imports are not counted: the user started them and watches them.
 */
export const defaultImportBound = (): number => availableParallelism();

/** Seconds a refused import is asked to wait: a large import takes that long and more. */
export const IMPORT_RETRY_AFTER_S = 10;

/** Seconds a refused client is asked to wait: about the time the work in flight takes. */
export const BUSY_RETRY_AFTER_S = 1;

export class Admission {
  private inFlight = 0;

  /** `what`: the work counted, as the refusal names it. */
  constructor(
    readonly bound: number,
    private readonly what = 'verification requests',
    readonly retryAfterS = BUSY_RETRY_AFTER_S,
  ) {}

  /** Requests now in flight. */
  get load(): number {
    return this.inFlight;
  }

  /** Take a request in and answer the function that lets it out (once), or undefined when the bound is reached. */
  tryEnter(): (() => void) | undefined {
    if (this.inFlight >= this.bound) return undefined;
    this.inFlight++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.inFlight--;
    };
  }

  /** The refusal of a request that did not fit: 4003, naming the bound. */
  refusal(): ServiceError {
    return new ServiceError(
      ErrorCodes.BUSY,
      `busy: ${this.inFlight} ${this.what} are in progress (the service takes ${this.bound} at once); retry in ${this.retryAfterS} s`,
    );
  }
}
