/*
 * One caller a turn of the event loop. Node 20's libuv takes one new connection a turn, so a turn
 * that runs the work of several requests at once keeps the connections behind it waiting in the
 * kernel's queue, and a burst of clients waits for its first answers before the service has even
 * read their requests. Work that passes here runs one caller a turn (after
 * that turn's I/O, in its check phase), so a burst's connections are taken between pieces of work.
 */
export class Turns {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  /** Resolves in a turn of its own: no other caller of this Turns is released in the same one. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.release);
      }
    });
  }

  /** Callers waiting (tests and diagnostics). */
  get queued(): number {
    return this.waiting.length;
  }

  private readonly release = (): void => {
    // The caller's continuation runs right after this callback, before the next immediate; one
    // set from here runs in the next turn, after that turn's I/O.
    this.waiting.shift()?.();
    if (this.waiting.length > 0) setImmediate(this.release);
    else this.scheduled = false;
  };
}
