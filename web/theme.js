// The colour theme: 'auto' (the system's preference, followed as it changes), 'light' or 'dark', remembered in
// this browser. It sets <html data-theme="light|dark">, which style.css reads, and calls back on a change: the
// charts take their axis and grid colours when they are built, so they are built again.
const THEME_KEY = 'gammalab.theme';
const darkQuery = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
const themeListeners = [];

// What the user chose: 'auto', 'light' or 'dark' (a page opened from a file may have no storage: 'auto').
export function themeChoice() {
  try {
    return localStorage.getItem(THEME_KEY) || 'auto';
  } catch {
    return 'auto';
  }
}

function applyTheme() {
  const choice = themeChoice();
  const theme = choice === 'auto' ? (darkQuery?.matches ? 'dark' : 'light') : choice;
  if (document.documentElement.dataset.theme === theme) return;
  document.documentElement.dataset.theme = theme;
  for (const listener of themeListeners) listener(theme);
}

// Sets the theme now, and again whenever the choice or (under 'auto') the system's preference changes, then
// calling `onChange(theme)`.
export function startTheme(onChange = null) {
  applyTheme();
  if (onChange) themeListeners.push(onChange);
  darkQuery?.addEventListener?.('change', applyTheme);
}

export function setThemeChoice(choice) {
  try {
    localStorage.setItem(THEME_KEY, choice);
  } catch {
    // no storage: the choice holds for this page only
  }
  applyTheme();
}
