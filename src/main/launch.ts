/*
 * What `npm start` and the Electron main process it launches tell each other. Electron can die
 * before its window appears (its sandbox refused by AppArmor, no display, a missing library), and
 * that must never look like a window the user closed: the main process says on stdout when its
 * window is shown, and says with its exit code when it refused to start and has told the user why.
 */

/** Set by `npm start` in Electron's environment: say WINDOW_OPEN_LINE on stdout once the window shows. */
export const WINDOW_SIGNAL_ENV = 'NPS_WINDOW_SIGNAL';
export const WINDOW_OPEN_LINE = 'NPS Reconcile: the window is open';
/** The main process refused to start and said why itself (a dialog, the log, stderr): nothing to add, no fallback. */
export const REFUSED_EXIT_CODE = 3;
