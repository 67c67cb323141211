/**
 * The window's colour scheme: the system's (prefers-color-scheme, the default) or one chosen in
 * Settings and remembered in localStorage. The stylesheet pairs every colour as light-dark(); the
 * choice is the data-theme attribute on <html>, set by main.tsx before the first render (the CSP
 * allows no inline script in index.html).
 */
const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

const STORAGE_KEY = 'nps-theme';

export function storedTheme(): Theme {
  try {
    const value = window.localStorage.getItem(STORAGE_KEY);
    return (THEMES as readonly string[]).includes(value ?? '') ? (value as Theme) : 'system';
  } catch {
    // Storage refused (a locked-down profile): the system's scheme.
    return 'system';
  }
}

export function applyTheme(theme: Theme): void {
  if (theme === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
}

export function chooseTheme(theme: Theme): void {
  applyTheme(theme);
  try {
    if (theme === 'system') window.localStorage.removeItem(STORAGE_KEY);
    else window.localStorage.setItem(STORAGE_KEY, theme);
  } catch {
    // Not remembered; the choice holds for this window.
  }
}
