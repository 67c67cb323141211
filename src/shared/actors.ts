/*
 * Who did something, as a person reads it. Ticket events, imports and the window's notes record
 * the actor as the service knows it: the desktop's named user; until one is named, the door the
 * call came through (`ui`: the desktop app, `cli`: the command line); for a signed request,
 * `api:<api_key>` (or `api`). The records and the API keep that word as it is; the window, the CLI,
 * messages and reports show this instead, so nobody reads "resolved by ui".
 */

const DOORS: Record<string, string> = { ui: 'the app', cli: 'the command line', api: 'a local tool' };

/** "Anna", "the app", "the command line", "API key 3f9a1c…7b20", "a local tool"; "someone" for none. */
export function actorLabel(actor: string): string {
  if (actor === '') return 'someone';
  if (Object.hasOwn(DOORS, actor)) return DOORS[actor]!;
  if (actor.startsWith('api:')) {
    const key = actor.slice(4);
    return `API key ${key.length > 12 ? `${key.slice(0, 6)}…${key.slice(-4)}` : key}`;
  }
  return actor;
}

/** The same, to begin a sentence: "The app resolved it". */
export const actorLabelStart = (actor: string): string => {
  const label = actorLabel(actor);
  return label.charAt(0).toUpperCase() + label.slice(1);
};
