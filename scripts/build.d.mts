/** The checkout's root. */
export declare const root: string;
/** No build yet, or a source newer than the last one. */
export declare function isStale(): boolean;
/** Build unless out/ is up to date. */
export declare function ensureBuilt(opts?: { log?: (line: string) => void; force?: boolean }): void;
