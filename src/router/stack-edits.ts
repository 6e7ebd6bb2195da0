/**
 * What tells the layer index (layer-index.ts) that code edited a router's stack in
 * place. Express walks `router.stack` as it is at every request, so an app may
 * replace a layer (`stack[i] = other`, `stack.splice(i, 1, other)`), reorder layers or
 * reassign a layer's `regexp` between requests, and the next request must see it.
 * Comparing the whole stack with what was indexed, at every request, cost 14 to 28
 * instructions per layer (40% more for the last of 1,000 routes); instead, every such
 * edit counts here, and the index compares one number.
 *
 * - A router's `stack` is a Proxy over the array webapp walks: reads go straight to
 *   the array (no trap), writes of any kind (an element, `length`, what `push`,
 *   `splice`, `reverse` or `sort` do) count as edits. `Array.isArray`, `JSON`,
 *   `util.inspect` and iteration see the array. webapp's own walk reads the array
 *   itself (`layersOf`), which costs nothing per layer, and `use`/`route` push onto
 *   it directly: a longer stack is rebuilt by its length, and a router filled while
 *   the server runs does not count against every other router's index.
 * - A layer's `regexp` is an accessor of its own (see Layer), whose setter counts.
 * - A stack the app put in place of the router's (`router.stack = list.filter(...)`)
 *   is not watched: the router then walks it without an index, reading it whole at
 *   every request as Express does.
 */
import type { Layer } from './layer';

/** Edits of a router stack or a layer's expression since the process started. */
let edits = 0;

export function stackEdits(): number {
  return edits;
}

/** Counts an edit that the layer index must see (a layer's `regexp` reassigned). */
export function noteStackEdit(): void {
  edits++;
}

const traps: ProxyHandler<Layer[]> = {
  set(target, key, value) {
    edits++;
    return Reflect.set(target, key, value);
  },
  defineProperty(target, key, descriptor) {
    edits++;
    return Reflect.defineProperty(target, key, descriptor);
  },
  deleteProperty(target, key) {
    edits++;
    return Reflect.deleteProperty(target, key);
  },
};

/** Where a router keeps the array behind its `stack`, and the view it gave out. */
export const kLayers = Symbol('webapp.layers');
export const kStackView = Symbol('webapp.stackView');

export interface WatchedStackOwner {
  stack: Layer[];
  [kLayers]?: Layer[];
  [kStackView]?: Layer[];
}

/** Gives `owner` a new, empty, watched `stack`. */
export function watchStack(owner: WatchedStackOwner): void {
  const layers: Layer[] = [];
  const view = new Proxy(layers, traps);
  owner[kLayers] = layers;
  owner[kStackView] = view;
  owner.stack = view;
}

/**
 * The array to walk for `owner`'s stack: the one behind the view it gave out, or, when
 * the app replaced `stack`, that value as it is.
 */
export function layersOf(owner: WatchedStackOwner): Layer[] {
  const visible = owner.stack;
  return visible === owner[kStackView] ? owner[kLayers]! : visible;
}
