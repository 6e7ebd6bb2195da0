/**
 * One visit of the notes showcase in a real browser, recorded step by step: where the
 * browser ended up, through which redirects, the page title, the flash texts and the
 * cookies it holds. Run against webapp and express@4, the two records must be equal.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, CDPSession, HTTPRequest, HTTPResponse, Page } from 'puppeteer-core';

export const outputDir = join(__dirname, 'output');

export interface Step {
  step: string;
  status: number | undefined;
  /** Path and query of each hop, redirects first. */
  hops: string[];
  /** Path and query of the page the browser shows. */
  path: string;
  title: string;
  flashes: string[];
  /** Cookies the browser holds for the app, with the attributes the server set. */
  cookies: string[];
}

const pathOf = (url: string) => {
  const { pathname, search } = new URL(url);
  return pathname + search;
};

/** A promise with its resolve function. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** `promise`, or a failure with `message` after `seconds`. */
async function withinSeconds(seconds: number, promise: Promise<void>, message: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new assert.AssertionError({ message })), seconds * 1000);
  });
  try {
    await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

export class Journey {
  readonly steps: Step[] = [];
  private page!: Page;

  constructor(
    private readonly browser: Browser,
    private readonly base: string,
    private readonly label: string,
  ) {}

  async start(): Promise<void> {
    this.page = await this.browser.newPage();
    this.page.setDefaultTimeout(15_000);
  }

  /** Records the page the browser is on after `response`. */
  async record(step: string, response: HTTPResponse | null, screenshot = false): Promise<Step> {
    const page = this.page;
    const hops = response
      ? [...response.request().redirectChain(), response.request()].map((request) => pathOf(request.url()))
      : [];
    const cookies = (await this.browser.cookies())
      .map(
        (c) =>
          `${c.name}; path=${c.path}; httpOnly=${c.httpOnly}; sameSite=${c.sameSite ?? 'none'}; session=${c.session}`,
      )
      .sort();
    const recorded: Step = {
      step,
      status: response?.status(),
      hops,
      path: pathOf(page.url()),
      // As a reader sees them: without the invisible isolates around a note's title.
      title: withoutIsolates(await page.title()),
      flashes: (await page.$$eval('.flash', (nodes) => nodes.map((node) => node.textContent!.trim()))).map(
        withoutIsolates,
      ),
      cookies,
    };
    this.steps.push(recorded);
    if (screenshot) {
      mkdirSync(outputDir, { recursive: true });
      await page.screenshot({ path: join(outputDir, `${this.label}-${step}.png`), fullPage: true });
    }
    return recorded;
  }

  async goto(step: string, path: string, screenshot = false): Promise<Step> {
    return this.record(step, await this.page.goto(this.base + path), screenshot);
  }

  /**
   * Fills the form fields by id, then submits the form and waits for the next page. With
   * `doubleClick`, the mouse clicks the button twice, as an impatient visitor does: the
   * form is sent twice, and the page is the one the browser shows once both are answered.
   * Its hops and status are left empty: which of the two navigations the browser reports,
   * and whether it reports one at all, is timing's (a loaded machine showed both).
   */
  async submit(
    step: string,
    fields: Record<string, string>,
    options: { form?: string; files?: Record<string, string>; screenshot?: boolean; doubleClick?: boolean } = {},
  ): Promise<Step> {
    const form = options.form ?? 'main form';
    for (const [id, value] of Object.entries(fields)) {
      await this.page.$eval(`#${id}`, (input) => ((input as unknown as { value: string }).value = ''));
      await this.page.type(`#${id}`, value);
    }
    for (const [id, file] of Object.entries(options.files ?? {})) {
      const input = await this.page.$(`#${id}`);
      assert.ok(input, `no file input #${id}`);
      await (input as unknown as { uploadFile(path: string): Promise<void> }).uploadFile(file);
    }
    const button = `${form} button[type=submit]`;
    if (options.doubleClick) return this.submitTwice(step, button, options.screenshot);
    const [response] = await Promise.all([
      this.page.waitForNavigation(),
      this.page.$eval(button, (button) => (button as unknown as { click(): void }).click()),
    ]);
    return this.record(step, response, options.screenshot);
  }

  /**
   * Clicks `button` twice, the second time once the browser has sent the form, and
   * records the page shown when both sendings are answered. Clicked at once, a loaded
   * browser could take both clicks before sending anything and send the form once (the
   * second submission replaces a first not yet started); and with the first answer in
   * before the second click, the second lands on the next page. So the first answer is
   * held until the second sending (see holdFormAnswersUntil), as a network slower than
   * loopback holds it.
   */
  private async submitTwice(step: string, button: string, screenshot?: boolean): Promise<Step> {
    const sent: string[] = [];
    const sending = [deferred(), deferred()];
    const onRequest = (request: HTTPRequest) => {
      if (request.method() !== 'POST') return;
      sent.push(pathOf(request.url()));
      sending[sent.length - 1]?.resolve();
    };
    // Where to click, found once: while the first sending is on its way, the page answers
    // no query (puppeteer's `click(selector)` waited for it), but the mouse still clicks.
    const target = await this.page.$(button);
    assert.ok(target, `no button ${button} on the page`);
    await target.scrollIntoView();
    const box = await target.boundingBox();
    assert.ok(box, `${button} is not shown`);
    const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
    this.page.on('request', onRequest);
    const network = await this.holdFormAnswersUntil(sending[1].promise);
    try {
      await this.page.mouse.click(x, y);
      await withinSeconds(10, sending[0].promise, 'the first click sent no form');
      await Promise.all([this.page.waitForNavigation(), this.page.mouse.click(x, y)]);
      // The other sending's answer may still be on its way: the page is the last one shown.
      await this.page.waitForNetworkIdle({ idleTime: 500 });
    } finally {
      await network.detach();
      this.page.off('request', onRequest);
    }
    assert.equal(sent.length, 2, `the double click sent the form twice: ${sent.join(', ')}`);
    return this.record(step, null, screenshot);
  }

  /**
   * Holds the answers to forms sent (POST navigations) in the browser, after the server
   * has handled them, until `released` settles or for 10 seconds (then the double
   * click's check fails: the second click found the next page).
   */
  private async holdFormAnswersUntil(released: Promise<void>): Promise<CDPSession> {
    const network = await this.page.createCDPSession();
    const pass = (requestId: string) =>
      // An answer whose navigation the second sending cancelled has no request left.
      network.send('Fetch.continueRequest', { requestId }).catch(() => {});
    network.on('Fetch.requestPaused', ({ requestId, request }) => {
      if (request.method !== 'POST') return void pass(requestId);
      const timeout = new Promise((resolve) => setTimeout(resolve, 10_000).unref());
      void Promise.race([released, timeout]).then(() => pass(requestId));
    });
    await network.send('Fetch.enable', {
      patterns: [{ urlPattern: '*', resourceType: 'Document', requestStage: 'Response' }],
    });
    return network;
  }

  /** Presses Back and records the page shown: hops and status are empty when it comes from the back/forward cache. */
  async back(step: string): Promise<Step> {
    return this.record(step, await this.page.goBack());
  }

  /** Clicks a link whose text is `text` and records the page it leads to. */
  async follow(step: string, text: string, screenshot = false): Promise<Step> {
    const [response] = await Promise.all([
      this.page.waitForNavigation(),
      this.page.$$eval(
        'a',
        (links, wanted) => links.find((link) => link.textContent!.trim() === wanted)!.click(),
        text,
      ),
    ]);
    return this.record(step, response, screenshot);
  }

  /** Removes the hidden CSRF field from the page's main form, as a forged form would lack it. */
  async dropCsrfToken(): Promise<void> {
    await this.page.$eval('main form input[name=_csrf]', (input) => input.remove());
  }

  async logOut(step: string): Promise<Step> {
    return this.submit(step, {}, { form: 'header form' });
  }

  /**
   * Clicks the attachment link and waits for Chromium to save the file in `dir`;
   * returns the saved file's content.
   */
  async download(linkText: string, dir: string, fileName: string): Promise<Buffer> {
    mkdirSync(dir, { recursive: true });
    const session = await this.browser.target().createCDPSession();
    await session.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: dir, eventsEnabled: true });
    const done = new Promise<string>((resolve) => {
      session.on('Browser.downloadProgress', (event) => {
        if (event.state === 'completed' || event.state === 'canceled') resolve(event.state);
      });
    });
    await this.page.$$eval(
      'a',
      (links, wanted) => links.find((link) => link.textContent!.trim() === wanted)!.click(),
      linkText,
    );
    const timeout = new Promise<string>((resolve) => setTimeout(resolve, 15_000, 'timed out').unref());
    const state = await Promise.race([done, timeout]);
    await session.detach();
    assert.equal(state, 'completed', `download of ${linkText}`);
    const saved = join(dir, fileName);
    assert.ok(existsSync(saved), `${saved} was not written`);
    return readFileSync(saved);
  }

  get currentPage(): Page {
    return this.page;
  }
}

/** A small text file to attach. */
export function attachmentFixture(dir: string, name = 'packing-list.txt'): { path: string; content: string } {
  mkdirSync(dir, { recursive: true });
  const content = 'Attached from a real browser.\n';
  const path = join(dir, name);
  writeFileSync(path, content);
  return { path, content };
}

/** Text without Unicode's first-strong isolate and pop directional isolate (U+2068, U+2069). */
function withoutIsolates(text: string): string {
  return text.replace(/[\u2068\u2069]/g, '');
}
