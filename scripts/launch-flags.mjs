/*
 * Node flags the `nps` launcher (scripts/nps.mjs) starts a command with. `serve` answers for as
 * long as it runs, and a verification of 1,000 claims leaves tens of MB of short-lived objects;
 * `import` reads a file of a million rows into as many short-lived cells and lines. With V8's
 * default young generation (16 MB semi-spaces) the collector runs several times a request, and
 * hundreds of times an import, much of it on helper threads that take the second core from the
 * import's writer: 64 MB semi-spaces cost bench:verify a fifth less CPU a request, and a 1M-row
 * import about a second (bench:import). The size can only be given as Node starts
 * (v8.setFlagsFromString afterwards leaves the heap as it is). Other commands start in a
 * fraction of a second and hold little: they run as started.
 */
export const LARGE_HEAP_FLAGS = ['--max-semi-space-size=64'];

/** The flags command line `args` (what follows `nps`) is started with. */
export function launchFlags(args) {
  return args[0] === 'serve' || args[0] === 'import' ? LARGE_HEAP_FLAGS : [];
}
