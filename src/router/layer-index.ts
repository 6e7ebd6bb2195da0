/**
 * Why this exists: Express tests every layer of a router, in order, for every
 * request, so routing cost grows with the number of routes. Most layers start with
 * a literal first path segment (`/users/...`, `/api`), and a request can only
 * match layers whose segment equals its own. The index groups layers by that
 * segment; a request walks only the layers of its segment plus the layers that
 * have none (middleware on `/`, patterns starting with a parameter, RegExps), in
 * stack order, so the order of execution is exactly Express's.
 */
import { Layer } from './layer';
import { stackEdits } from './stack-edits';

/**
 * Below this many layers a plain scan is as fast as the index. With 8, an app's
 * router of 10 routes (12 layers with `query` and `expressInit`) is indexed: a
 * request for its last route cost 88,559 instructions scanned and 85,398 indexed
 * (Node 20, bench/README.md "Profiles").
 */
export const MIN_INDEXED_LAYERS = 8;

/**
 * Layer's own `match`. A layer matched by another (an instrumentation's wrapper on
 * `Layer.prototype.match`, a function given to one layer) may match paths its pattern
 * does not: it is asked for every path, as Express asks every layer, when it is in place
 * as the index is built (a router's first request from 8 layers on, and after each edit
 * of its stack). One given to a layer later is not seen until then
 * (docs/migrating-from-express-4.md, `app._router.stack`).
 */
const layerMatch = Layer.prototype.match;

export class LayerIndex {
  private readonly bySegment = new Map<string, number[]>();
  private readonly unkeyed: number[] = [];
  private readonly merged = new Map<string, number[]>();
  /**
   * The array indexed, its length, and the count of stack edits (stack-edits.ts) at
   * build time: a change to any rebuilds the index.
   */
  private readonly stack: Layer[];
  private readonly length: number;
  private readonly edits: number;
  /** `Layer.prototype.match` at build time: replacing it files every layer anew. */
  private readonly prototypeMatch: Layer['match'];
  /**
   * Whether any layer has a literal first segment. Without one (a chain of middleware)
   * the index would list every layer for every path, and a plain scan does that for less.
   */
  readonly narrows: boolean;
  /** Below what stack length a cursor scans without asking: past this stack's length when the index narrows nothing. */
  readonly scanBelow: number;

  private constructor(stack: Layer[]) {
    this.stack = stack;
    this.length = stack.length;
    this.edits = stackEdits();
    this.prototypeMatch = Layer.prototype.match;
    for (let i = 0; i < stack.length; i++) {
      const layer = stack[i];
      // A layer whose `regexp` was replaced matches by the new one (Layer.match), and one
      // with another `match` by that: its compiled pattern, and the segment it had, say
      // nothing of it any more.
      const key =
        layer.regexp === layer.pattern?.regexp && layer.match === layerMatch ? layer.pattern.segmentKey : undefined;
      if (key === undefined) {
        this.unkeyed.push(i);
      } else {
        let list = this.bySegment.get(key);
        if (list === undefined) this.bySegment.set(key, (list = []));
        list.push(i);
      }
    }
    this.narrows = this.bySegment.size !== 0;
    this.scanBelow = this.narrows ? MIN_INDEXED_LAYERS : stack.length + 1;
  }

  /** The index for `stack`, or undefined when the stack is too small to profit from one. */
  static for(stack: Layer[], current: LayerIndex | undefined): LayerIndex | undefined {
    if (stack.length < MIN_INDEXED_LAYERS) return undefined;
    // Asked once per request (per path): a `match` replaced on the prototype since is seen by the next.
    if (current !== undefined && current.isFor(stack) && current.prototypeMatch === Layer.prototype.match) {
      return current;
    }
    return new LayerIndex(stack);
  }

  /**
   * Whether the stack still holds what was indexed: the same array, as long, and no
   * stack edited nor layer's `regexp` reassigned since (any router's: edits are rare,
   * and one number is cheaper to compare than one per router). Asked per layer walked,
   * so that an edit made by a layer is seen by the rest of the same walk, as in Express.
   */
  isFor(stack: Layer[]): boolean {
    return stack === this.stack && stack.length === this.length && this.edits === stackEdits();
  }

  /** Positions in the stack of the layers that may match `path`, ascending. */
  candidates(path: string): readonly number[] {
    // Every keyed layer's pattern starts with `/segment`, so other paths match none of them.
    if (path.charCodeAt(0) !== 0x2f) return this.unkeyed;
    let end = path.indexOf('/', 1);
    if (end === -1) end = path.length;
    const segment = path.slice(1, end).toLowerCase();
    const keyed = this.bySegment.get(segment);
    if (keyed === undefined) return this.unkeyed;
    let list = this.merged.get(segment);
    if (list === undefined) {
      list = mergeSorted(keyed, this.unkeyed);
      this.merged.set(segment, list);
    }
    return list;
  }
}

function mergeSorted(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) out.push(a[i++]);
    else out.push(b[j++]);
  }
  return out;
}

/** First position in the ascending `list` whose value is at least `min`. */
export function firstAtLeast(list: readonly number[], min: number): number {
  let low = 0;
  let high = list.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (list[mid] < min) low = mid + 1;
    else high = mid;
  }
  return low;
}
