/**
 * A visitor of the showcase app over real HTTP: keeps its cookies like a browser, follows
 * nothing by itself (tests assert each redirect), and sends a form's hidden fields (the
 * CSRF token, the new note's form id) as a browser does.
 */
import assert from 'node:assert/strict';

export interface Page {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

/** What the showcase's JSON API answers: a note, a page of notes, or an error. */
export interface ApiJson {
  id?: number;
  title?: string;
  body?: string;
  attachment?: { name: string; type: string; size: number; url: string } | null;
  notes?: ApiJson[];
  page?: number;
  perPage?: number;
  total?: number;
  pages?: number;
  error?: { status: number; code: string; message: string; details?: { field: string; message: string }[] };
}

export class Visitor {
  private readonly cookies = new Map<string, string>();

  /** `base` may change (an app restarted on a new port): the cookies stay. */
  constructor(public base: string) {}

  cookieNames(): string[] {
    return [...this.cookies.keys()];
  }

  /**
   * The same browser with the cookies it holds now: a second click, sent before the
   * answer to the first came back with its cookies, is this copy's request.
   */
  copy(): Visitor {
    const twin = new Visitor(this.base);
    for (const [name, value] of this.cookies) twin.cookies.set(name, value);
    return twin;
  }

  /** The Cookie header of this visitor's next request (empty when it holds none). */
  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async request(path: string, init: RequestInit = {}): Promise<Page> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set('Cookie', this.cookieHeader());
    const res = await fetch(this.base + path, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const name = pair.slice(0, pair.indexOf('='));
      if (/Expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(name.length + 1));
    }
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
  }

  get(path: string): Promise<Page> {
    return this.request(path);
  }

  /** The `_csrf` value of the first form on the page at `path`. */
  async csrfToken(path: string): Promise<string> {
    const page = await this.get(path);
    const match = /name="_csrf" value="([^"]+)"/.exec(page.text);
    assert.ok(match, `no CSRF token on ${path} (status ${page.status})`);
    return match[1];
  }

  /** The hidden fields of the form in the page's `<main>` (the header's logout form aside), in their order. */
  async hiddenFields(path: string): Promise<Record<string, string>> {
    const page = await this.get(path);
    const form = /<main[\s\S]*?(<form[\s\S]*?<\/form>)/.exec(page.text)?.[1];
    assert.ok(form, `no form on ${path} (status ${page.status})`);
    const hidden = form.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g);
    return Object.fromEntries([...hidden].map(([, name, value]) => [name, unescapeHtml(value)]));
  }

  /** Submits an urlencoded form: the hidden fields of the form page, then `fields` (which may replace them). */
  async submit(formPage: string, action: string, fields: Record<string, string>): Promise<Page> {
    const body = new URLSearchParams({ ...(await this.hiddenFields(formPage)), ...fields });
    return this.request(action, { method: 'POST', body });
  }

  /** Submits a multipart form as `submit` does; `file` becomes the `attachment` field. */
  async upload(
    formPage: string,
    action: string,
    fields: Record<string, string>,
    file?: { name: string; type: string; content: Buffer | string },
  ): Promise<Page> {
    return this.request(action, {
      method: 'POST',
      body: formData({ ...(await this.hiddenFields(formPage)), ...fields }, file),
    });
  }

  async signUp(username: string, password = 'correct horse'): Promise<Page> {
    const page = await this.submit('/signup', '/signup', { username, password, confirm: password });
    assert.equal(page.status, 302, page.text);
    return page;
  }

  async logIn(username: string, password = 'correct horse'): Promise<Page> {
    return this.submit('/login', '/login', { username, password });
  }

  async api(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; headers: Headers; json: ApiJson }> {
    const page = await this.request(path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: page.status, headers: page.headers, json: page.text ? (JSON.parse(page.text) as ApiJson) : {} };
  }
}

/** A multipart body: the fields in their order, then `file` as the `attachment` field. */
export function formData(
  fields: Record<string, string>,
  file?: { name: string; type: string; content: Buffer | string },
): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  if (file)
    form.set(
      'attachment',
      new Blob([typeof file.content === 'string' ? file.content : new Uint8Array(file.content)], { type: file.type }),
      file.name,
    );
  return form;
}

const entities: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&#34;': '"', '&#39;': "'" };
const unescapeHtml = (text: string) => text.replace(/&(?:amp|lt|gt|#34|#39);/g, (entity) => entities[entity]);

/** The texts of the flash messages on a page. */
export function flashes(html: string): string[] {
  return [...html.matchAll(/<p class="flash flash-\w+" role="(?:status|alert)">([^<]*)<\/p>/g)].map((match) =>
    withoutIsolates(unescapeHtml(match[1])),
  );
}

/** The page title without the app name. */
export function titleOf(html: string): string {
  return withoutIsolates(unescapeHtml(/<title>(.*?) · Notes<\/title>/.exec(html)?.[1] ?? ''));
}

/**
 * Text as a reader sees it: without the invisible isolates (U+2068, U+2069) the app puts
 * around a note's title in its own sentences (showcase.test.ts checks them).
 */
function withoutIsolates(text: string): string {
  return text.replace(/[\u2068\u2069]/g, '');
}

/** The validation message shown next to a field, if any. */
export function fieldError(html: string, field: string): string | undefined {
  const message = new RegExp(`<p class="error" id="${field}-error">([^<]*)</p>`).exec(html)?.[1];
  return message === undefined ? undefined : unescapeHtml(message);
}

/** The ids of the controls that take the keyboard focus when the page loads. */
export function autofocused(html: string): string[] {
  return [...html.matchAll(/<(?:input|textarea) id="([^"]+)"[^>]* autofocus>/g)].map((match) => match[1]);
}
