/*
 * Words for each door. The service's sentences are read in the window and on the command line;
 * where one tells the user how to give something, the command line names its flag or command
 * (`--wallet-address`, `nps tokens add`) and the window its screen, field or button. Such a phrase
 * is written with both (`byDoor`) and kept so, in stored sentences too (an import's rejected rows);
 * each door says its own when it answers: the window's (app/call.ts), the command line's
 * (cli/common.ts) and the API's, which is the command line's (http/envelope.ts).
 */

export type Door = 'cli' | 'window';

const OPEN = '\uE000';
const BETWEEN = '\uE001';
const CLOSE = '\uE002';
const PHRASE = /\uE000([^\uE000-\uE002]*)\uE001([^\uE000-\uE002]*)\uE002/g;

/** A phrase as the command line says it and as the window does (characters of Unicode's private use mark the two). */
export const byDoor = (cli: string, window: string): string => `${OPEN}${cli}${BETWEEN}${window}${CLOSE}`;

/** The sentence as this door says it. */
export function sayFor(text: string, door: Door): string {
  if (!text.includes(OPEN)) return text;
  return text.replace(PHRASE, (_, cli: string, window: string) => (door === 'cli' ? cli : window));
}

/** Every sentence in an answer (objects and arrays walked; anything else as it is) as this door says it. */
export function answerFor<T>(value: T, door: Door): T {
  if (typeof value === 'string') return sayFor(value, door) as T;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const said = answerFor(value[i] as unknown, door);
      if (said !== value[i]) (out ??= value.slice())[i] = said;
    }
    return (out ?? value) as T;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    let out: Record<string, unknown> | undefined;
    for (const [key, v] of Object.entries(value)) {
      const said = answerFor(v, door);
      if (said !== v) (out ??= { ...(value as Record<string, unknown>) })[key] = said;
    }
    return (out ?? value) as T;
  }
  return value;
}
