// A folder replaced whole: the build writes dist/ beside it, in a folder of its own, and
// renames that over dist/ once complete. Two builds at once (`npm start` and
// `npm run start:v3` each build first) used to write into the same dist/, one deleting
// what the other had written: a server could load a half-written package.
import { readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The folder this process builds `target` in: beside it (one file system, one depth), its own. */
export function stagingFor(target) {
  return `${target}.tmp-${process.pid}`;
}

/**
 * Puts `built` in place of `target`. A reader sees the old folder or the new one, never one
 * being written; between the two renames, for a moment, none. rename(2) replaces only an
 * empty folder, so the old one is moved aside first. Another build may move it or put
 * its own in place meanwhile: then this one tries again, and the last to rename wins,
 * each a whole build.
 */
export function swapIn(built, target) {
  const aside = [];
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        renameSync(built, target);
        return;
      } catch (err) {
        if ((err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') || attempt > 100) throw err;
      }
      const old = `${target}.old-${process.pid}-${attempt}`;
      try {
        renameSync(target, old);
        aside.push(old);
      } catch (err) {
        if (err.code !== 'ENOENT') throw err;
      }
    }
  } finally {
    for (const old of aside) rmSync(old, { recursive: true, force: true });
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Removes the staging and set-aside folders of builds that were killed before cleaning up. */
export function removeAbandoned(target) {
  const pattern = new RegExp(`^${basename(target).replace(/\W/g, '\\$&')}\\.(?:tmp|old)-(\\d+)(?:-\\d+)?$`);
  for (const name of readdirSync(dirname(target))) {
    const match = pattern.exec(name);
    if (match && !alive(Number(match[1]))) rmSync(join(dirname(target), name), { recursive: true, force: true });
  }
}
