/*
 * Node flags the `nps` launcher (scripts/nps.mjs) starts a command with: a larger young generation
 * for the two commands that make garbage fast. `serve` answers for as long as it runs, and a
 * verification of 1,000 claims leaves tens of MB of short-lived objects; `import` reads a file of a
 * million rows into as many short-lived cells and lines. With V8's default (16 MB semi-spaces) the
 * collector runs several times a request and hundreds of times an import, much of it on helper
 * threads that take the second core from the import's writer. 64 MB semi-spaces cost bench:verify
 * a fifth less CPU a request; for `import` 32 MB gain as much of a 1M-row import's time as 64 MB
 * (about a second) for half the memory, keeping its peak under 400 MB (bench:import). The size can
 * only be given as Node starts (v8.setFlagsFromString afterwards leaves the heap as it is). Other
 * commands start in a fraction of a second and hold little: they run as started.
 */
const FLAGS = {
  serve: ['--max-semi-space-size=64'],
  import: ['--max-semi-space-size=32'],
};

/** The flags command line `args` (what follows `nps`) is started with. */
export function launchFlags(args) {
  return Object.hasOwn(FLAGS, args[0] ?? '') ? FLAGS[args[0]] : [];
}
