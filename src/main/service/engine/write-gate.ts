/**
 * Large imports write on a thread of their own, holding the store's write lock from their first row
 * to their commit (seconds, for a million rows). A write of the service's own thread in that time
 * would block the thread on SQLite's busy timeout (answering nothing, window and API alike) and
 * then fail. Instead the service's writes wait here, without blocking, until the import is done;
 * reads go on as usual (WAL readers do not wait for the writer).
 */
export class WriteGate {
  private held: Promise<void> | null = null;

  /** Whether an import holds the write lock now. */
  get busy(): boolean {
    return this.held !== null;
  }

  /** Resolves when no import holds the write lock. */
  async idle(): Promise<void> {
    while (this.held) await this.held;
  }

  /** Wait for the lock, take it, and answer the function that gives it back (call it once). */
  async acquire(): Promise<() => void> {
    // Not `await this.idle()`: that resolves a tick later, and a waiter of idle() woken by the
    // same release would run first, as if the gate were free.
    while (this.held) await this.held;
    let release!: () => void;
    this.held = new Promise((resolve) => {
      release = () => {
        this.held = null;
        resolve();
      };
    });
    return release;
  }
}
