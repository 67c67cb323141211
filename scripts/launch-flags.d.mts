/** The flags command line `args` (what follows `nps`) is started with: a larger young generation for serve and import. */
export declare function launchFlags(args: readonly string[]): readonly string[];
