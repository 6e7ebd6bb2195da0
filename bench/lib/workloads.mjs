// The data the workloads are made of, shared by the servers (through
// bench/servers/shared.mjs) and by the harness that checks their answers.

/** What the `ejs` page is rendered with, and its template (written to the views directory). */
export const VIEW_LOCALS = {
  title: 'Bench <page>',
  items: Array.from({ length: 20 }, (_, i) => ({ name: `item ${i} & co`, price: (i * 1.25).toFixed(2) })),
};
export const VIEW_TEMPLATE = [
  '<!doctype html>',
  '<html><head><title><%= title %></title></head>',
  '<body><h1><%= title %></h1>',
  '<ul>',
  '<% items.forEach(function (item) { %>  <li><%= item.name %>: <%= item.price %></li>',
  '<% }) %></ul>',
  '</body></html>',
  '',
].join('\n');

/** The text the `gzip` workload compresses: about 6 KB of repetitive HTML-like text. */
export const GZIP_TEXT = Array.from(
  { length: 120 },
  (_, i) => `<li class="row">Row ${i}: the quick brown fox</li>\n`,
).join('');

/** The `cookies` workload: the Cookie header sent, the value read back, and the cookie set. */
export const COOKIE_HEADER = 'session=abc123; theme=dark; lang=en-GB';
export const COOKIE_READ = 'dark';
export const SET_COOKIE = { name: 'seen', value: '1' };

/** The `query` workload: a nested query string (as qs reads it), answered with one deep value. */
export const NESTED_QUERY =
  'user[name]=Ada&user[address][city]=London&user[address][zip]=N1&user[tags][]=a&user[tags][]=b';
export const QUERY_ANSWER = 'London';

/** The `form` workload: 20 plain fields with escapes and one nested field, 21 top-level keys. */
export const FORM_BODY = [
  ...Array.from({ length: 20 }, (_, i) => `field${i}=value+${i}%21`),
  'address[city]=London',
].join('&');
export const FORM_FIELDS = 21;
