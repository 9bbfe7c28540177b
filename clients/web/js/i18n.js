// The interface's words: one JSON table a language (/i18n/LANG.json, every word of the
// interface and the server's error codes as sentences), fetched for the chosen language only,
// at start and when the player switches. A key missing from a table is shown in English (that
// table is fetched only then); tests/web/test_i18n_tables.py keeps every table complete.

export const LANGS = ["en", "ru", "pt", "fr"];
export const LANG_NAMES = { en: "English", ru: "Русский", pt: "Português", fr: "Français" };
// The page's lang attribute a language: our Portuguese is Brazilian (a screen reader picks its voice).
export const LANG_TAGS = { en: "en", ru: "ru", pt: "pt-BR", fr: "fr" };

const tables = {}; // language -> its table, once fetched
const fetching = {}; // language -> the promise of its table
let current = "en";
let redraw = () => {};

function fetchTable(code) {
  fetching[code] ??= fetch(`/i18n/${code}.json`)
    .then((res) => {
      if (!res.ok) throw new Error(`${code}.json: ${res.status}`);
      return res.json();
    })
    .then((table) => (tables[code] = table))
    .catch((err) => {
      delete fetching[code]; // asked again next time
      throw err;
    });
  return fetching[code];
}

export function lang() {
  return current;
}

// Switch to a language once its table is here (until then the old one stays on screen); a
// language whose table cannot be fetched falls back to English.
export async function setLang(code) {
  const want = LANGS.includes(code) ? code : "en";
  try {
    await fetchTable(want);
    current = want;
  } catch {
    current = "en";
    await fetchTable("en").catch(() => {});
  }
  document.documentElement.lang = LANG_TAGS[current];
}

// The chosen language as a BCP 47 tag ("pt-BR"), for lang attributes and dates.
export function langTag() {
  return LANG_TAGS[current];
}

// What to call when the English table arrives for a missing key (the app redraws).
export function onFallback(fn) {
  redraw = fn;
}

// Whether the chosen language has a text for `key`.
export function has(key) {
  return key in (tables[current] || {});
}

// The first of the browser's languages that we speak ("pt-BR" -> "pt"), else English.
export function detectLang(prefs) {
  for (const p of prefs || []) {
    const base = String(p || "").toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

function english(key) {
  if (tables.en) return tables.en[key];
  fetchTable("en").then(() => redraw(), () => {});
  return undefined;
}

export function t(key, params) {
  let text = (tables[current] || {})[key] ?? english(key) ?? key;
  if (params) text = text.replace(/\{(\w+)\}/g, (m, k) => (params[k] ?? m));
  return text;
}

// A place as the chosen language writes it: 3rd, 3ᵉ, 3º, 3-е (its ordinal plural category).
export function ordinal(n) {
  const kind = new Intl.PluralRules(langTag(), { type: "ordinal" }).select(n);
  return t("ord." + kind, { n });
}

// A count in words as the chosen language declines it: `key.one`, `key.few`, `key.many` or
// `key.other` by its cardinal plural category ("1 hand left", "осталось 5 раздач").
export function plural(key, n) {
  const kind = new Intl.PluralRules(langTag()).select(n);
  return t(`${key}.${has(`${key}.${kind}`) ? kind : "other"}`, { n });
}

// A server error code as a sentence in the chosen language.
export function errorText(code, fallback) {
  if (has("err." + code)) return t("err." + code);
  return t("err.unknown", { code: fallback ? `${code}: ${fallback}` : code });
}
