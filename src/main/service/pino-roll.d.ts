// pino-roll ships no types: the part of its API this service uses (its README, "build(options)").
declare module 'pino-roll' {
  import type { DestinationStream } from 'pino';
  interface RollOptions {
    file: string | (() => string);
    size?: string | number;
    frequency?: string | number;
    extension?: string;
    mkdir?: boolean;
    symlink?: boolean;
    limit?: { count?: number; removeOtherLogFiles?: boolean };
    dateFormat?: string;
    /** sonic-boom's: bytes buffered before a write. */
    minLength?: number;
  }
  export default function build(options: RollOptions): Promise<DestinationStream & { end(): void; flushSync?(): void }>;
}
