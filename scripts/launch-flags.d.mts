/** The young generation's size for the long or heavy commands (serve, import). */
export declare const LARGE_HEAP_FLAGS: readonly string[];
/** The flags command line `args` (what follows `nps`) is started with. */
export declare function launchFlags(args: readonly string[]): readonly string[];
