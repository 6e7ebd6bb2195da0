const HTML_SPECIAL = /["'&<>]/;
const REPLACEMENTS: Record<string, string> = { '"': '&quot;', '&': '&amp;', "'": '&#39;', '<': '&lt;', '>': '&gt;' };

/** Escapes the five HTML-special characters (as escape-html does); returns the input when none occur. */
export function escapeHtml(value: string): string {
  const str = String(value);
  if (!HTML_SPECIAL.test(str)) return str;
  return str.replace(/["'&<>]/g, (ch) => REPLACEMENTS[ch]);
}
