import type { Logger } from 'pino';

type Level = 'error' | 'warn' | 'info';

/**
 * The desktop shell's log: each line on stderr (a terminal, when the app was started from one) and
 * in the data folder's log once it is open. A packaged app has no terminal, so what the shell says
 * before the log opens (an uncaught exception at start, the data folder's upgrade) is kept and
 * written to the log when it opens. `place` names where the log is, for messages that send the
 * user there.
 */
export class ShellLog {
  private logger: Logger | undefined;
  private early: { level: Level; fields: Record<string, unknown>; msg: string }[] = [];
  place = 'the output of NPS Reconcile in a terminal (no log file is open yet)';

  /** The data folder's log is open: write what waited, and go on writing there. */
  attach(logger: Logger, place: string): void {
    this.logger = logger;
    this.place = place;
    for (const line of this.early) logger[line.level](line.fields, line.msg);
    this.early = [];
  }

  error(msg: string, fields: Record<string, unknown> = {}): void {
    this.write('error', msg, fields);
  }

  warn(msg: string, fields: Record<string, unknown> = {}): void {
    this.write('warn', msg, fields);
  }

  info(msg: string, fields: Record<string, unknown> = {}): void {
    this.write('info', msg, fields);
  }

  private write(level: Level, msg: string, fields: Record<string, unknown>): void {
    try {
      process.stderr.write(msg + '\n');
    } catch {
      // No terminal (a GUI app on Windows): the log below is where it goes.
    }
    if (this.logger) this.logger[level](fields, msg);
    else if (this.early.length < 1000) this.early.push({ level, fields, msg });
  }
}
