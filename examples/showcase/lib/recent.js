'use strict';
// What was done a moment ago, remembered for `ttl` ms in this process's memory: enough
// for a repeat that comes within seconds (the same button clicked twice). At most `max`
// entries are kept, the oldest dropped first, so a burst cannot grow it without bound.

function recent({ ttl, max = 10_000 }) {
  // In the order they were remembered, so the oldest (the first to expire) come first.
  const entries = new Map();

  function prune(now) {
    for (const [key, entry] of entries) {
      if (entry.until > now && entries.size <= max) break;
      entries.delete(key);
    }
  }

  return {
    remember(key, value) {
      const now = Date.now();
      entries.delete(key);
      entries.set(key, { value, until: now + ttl });
      prune(now);
    },
    /** The value remembered under `key`, or undefined once `ttl` has passed. */
    recall(key) {
      const entry = entries.get(key);
      return entry && entry.until > Date.now() ? entry.value : undefined;
    },
  };
}

module.exports = { recent };
