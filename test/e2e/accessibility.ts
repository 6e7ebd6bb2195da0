/**
 * Basic accessibility checks of the page a browser shows: what a screen reader and a
 * keyboard user rely on first. Each check returns what it found, so a failing assertion
 * names the page and the element.
 */
import type { Page } from 'puppeteer-core';

// The functions below run in the page; the tests are type-checked without the DOM library.
declare const document: any;
declare const getComputedStyle: any;
declare const window: any;

export interface PageFacts {
  /** `<html lang>`. */
  lang: string;
  /** How many `<main>` landmarks the page has, and the id of the first. */
  mains: number;
  mainId: string | null;
  /** Form controls (hidden inputs aside) without a label, by id or name. */
  unlabelled: string[];
  /** Validation messages shown next to their fields. */
  fieldErrors: number;
  /** What is wrong between those messages and their controls (aria-describedby, aria-invalid). */
  untiedErrors: string[];
  /** The role of the live region of each flash message (null: none). */
  flashRoles: (string | null)[];
}

/**
 * What the page's markup says. (No function is given a name inside a function that runs
 * in the page: tsx would wrap it in a `__name` helper the page does not have.)
 */
export function pageFacts(page: Page): Promise<PageFacts> {
  return page.evaluate(() => {
    const mains = [...document.querySelectorAll('main, [role=main]')];
    const controls = [
      ...document.querySelectorAll('input:not([type=hidden]), select, textarea, button, [role=button]'),
    ];
    const errors = [...document.querySelectorAll('.field .error')];
    const untiedErrors: string[] = [];
    for (const error of errors) {
      const control = error.closest('.field').querySelector('input, select, textarea');
      const describedBy = (control?.getAttribute('aria-describedby') || '').split(/\s+/);
      if (!error.id || !describedBy.includes(error.id))
        untiedErrors.push(`${control?.id}: aria-describedby does not name its error`);
      if (control?.getAttribute('aria-invalid') !== 'true') untiedErrors.push(`${control?.id}: not aria-invalid`);
    }
    for (const control of document.querySelectorAll('[aria-invalid=true]')) {
      if (!control.closest('.field')?.querySelector('.error')) untiedErrors.push(`${control.id}: invalid, no error`);
    }
    const live = '[role=status], [role=alert], [aria-live=polite], [aria-live=assertive]';
    return {
      lang: document.documentElement.lang,
      mains: mains.length,
      mainId: mains[0]?.id || null,
      unlabelled: controls
        .filter(
          (el: any) =>
            !(el.labels && el.labels.length > 0) &&
            !el.getAttribute('aria-label') &&
            !el.getAttribute('aria-labelledby') &&
            !((el.tagName === 'BUTTON' || el.getAttribute('role') === 'button') && el.textContent.trim()),
        )
        .map((el: any) => el.id || el.getAttribute('name') || el.outerHTML.slice(0, 60)),
      fieldErrors: errors.length,
      untiedErrors,
      flashRoles: [...document.querySelectorAll('.flash')]
        .map((el: any) => el.closest(live))
        .map((region: any) => region && (region.getAttribute('role') || `aria-live=${region.ariaLive}`)),
    };
  });
}

export interface KeyboardFacts {
  /** Where the focus is once the page has loaded: `body`, or the tag and id of a control (autofocus). */
  initialFocus: string;
  /** The first Tab stop from the start of the page: its text and where it leads. */
  firstStop: { text: string; href: string | null };
  /** After Enter on it: the focused element's tag and id. */
  focusAfterSkip: string;
  /** Tab stops (up to `limit`) whose focus shows no outline of at least 2px. */
  invisibleFocus: string[];
  /** How many Tab stops were looked at. */
  stops: number;
}

/**
 * Where the page put the focus, then the page driven with the keyboard from its start:
 * every Tab stop in turn, with the focus indicator it shows (`:focus-visible` applies, as
 * for a keyboard user), round to the first stop again, then Enter on it. Focus has moved
 * afterwards: load the page again before another read.
 */
export async function keyboardFacts(page: Page, limit = 40): Promise<KeyboardFacts> {
  const focused = () =>
    page.evaluate(() => {
      const el = document.activeElement;
      const style = getComputedStyle(el);
      return {
        tag: el.tagName.toLowerCase(),
        id: el.id,
        text: (el.textContent || el.value || el.getAttribute('name') || '').trim().slice(0, 40),
        href: el.getAttribute('href'),
        outline: style.outlineStyle === 'none' ? 0 : parseFloat(style.outlineWidth),
        isFirst: el === window.firstTabStop,
      };
    });
  // A frame later, autofocus has been applied (browsers do it while rendering).
  await page.evaluate(() => new Promise((resolve) => window.requestAnimationFrame(resolve)));
  const initialFocus = await page.evaluate(() => {
    const el = document.activeElement;
    return el === document.body ? 'body' : `${el.tagName.toLowerCase()}#${el.id}`;
  });
  // Tab goes on from the focused element: start it from the top of the page instead, where
  // a focused element that is removed leaves Chromium's starting point.
  await page.evaluate(() => {
    const start = document.createElement('span');
    start.tabIndex = -1;
    document.body.prepend(start);
    start.focus();
    start.remove();
  });
  const invisibleFocus: string[] = [];
  const look = (stop: Awaited<ReturnType<typeof focused>>) => {
    if (stop.outline < 2) invisibleFocus.push(`${stop.tag} "${stop.text}" (${stop.outline}px)`);
  };
  await page.keyboard.press('Tab');
  await page.evaluate(() => (window.firstTabStop = document.activeElement));
  const first = await focused();
  look(first);
  let stops = 1;
  for (; stops < limit; stops++) {
    await page.keyboard.press('Tab');
    const now = await focused();
    // Past the last stop, the focus leaves the page (the body), or comes round to the first.
    if (now.tag === 'body') await page.keyboard.press('Tab');
    if (now.tag === 'body' || now.isFirst) break;
    look(now);
  }
  const again = await focused();
  let focusAfterSkip = 'no link to a part of the page first';
  if (!again.isFirst) focusAfterSkip = 'the Tab key did not come round to the first stop';
  else if (first.href?.startsWith('#')) {
    await page.keyboard.press('Enter');
    const afterEnter = await focused();
    focusAfterSkip = `${afterEnter.tag}#${afterEnter.id}`;
  }
  return {
    initialFocus,
    firstStop: { text: first.text, href: first.href },
    focusAfterSkip,
    invisibleFocus,
    stops,
  };
}
