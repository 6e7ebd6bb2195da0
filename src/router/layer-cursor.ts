/**
 * A request's position in a router's stack. The dispatch loop asks it for the next
 * layer that may match; whether that walks every layer or only the layer index's
 * candidates for the path is the cursor's business, not the loop's.
 *
 * The dispatch extends it rather than holding one: a request makes one object per
 * router it enters instead of two (see Dispatch).
 */
import type { Layer } from './layer';
import { LayerIndex, MIN_INDEXED_LAYERS, firstAtLeast } from './layer-index';
import { kLayers, layersOf, type WatchedStackOwner } from './stack-edits';

/** Where a router keeps its layer index between requests (rebuilt when the stack changes). */
export const kLayerIndex = Symbol('webapp.layerIndex');

export interface IndexedStack extends WatchedStackOwner {
  [kLayerIndex]?: LayerIndex;
}

export class LayerCursor {
  // Declared and set in the constructor rather than emitted as class fields: see Dispatch.
  declare private readonly owner: IndexedStack;
  /**
   * The layers walked: the router's stack as the request found it (Express too reads
   * `router.stack` once per request, and sees edits made in place to that array).
   */
  declare private readonly layers: Layer[];
  /** Stack position of the next layer to look at; it only moves forward. */
  declare private position: number;
  /** The index's candidate positions for the current path, or undefined for a plain scan. */
  declare private candidates: readonly number[] | undefined;
  declare private candidate: number;
  /** The path and index `candidates` were found for: a walk over the same ones keeps them. */
  declare private seekPath: string | undefined;
  declare private seekIndex: LayerIndex | undefined;
  /**
   * A stack shorter than this is scanned whole without asking the index: too small to
   * index, or (raised past the stack's length) indexed without a layer to narrow by.
   */
  declare private scanBelow: number;

  constructor(owner: IndexedStack) {
    this.owner = owner;
    this.layers = layersOf(owner);
    this.position = 0;
    this.candidates = undefined;
    this.candidate = 0;
    this.seekPath = undefined;
    this.seekIndex = undefined;
    // What an earlier request learnt of this stack: a chain of middleware is scanned at
    // once. A stack the app put in place of the router's is never indexed: nothing
    // would tell an index of its edits (stack-edits.ts).
    this.scanBelow =
      this.layers !== owner[kLayers] ? Number.POSITIVE_INFINITY : (owner[kLayerIndex]?.scanBelow ?? MIN_INDEXED_LAYERS);
  }

  /** Moves to a position ahead, as if the layers before it had been looked at. */
  protected skipTo(position: number): void {
    this.position = position;
  }

  /**
   * The next layer that may match, without moving past it, when finding it needs no
   * new look at the path: a stack scanned whole, or the index's candidates for the
   * path last sought, the stack still of the same length (what `seek` checks before
   * keeping them). Undefined at the end of the stack, or when `seek` must run first.
   */
  protected peekLayer(): Layer | undefined {
    const stack = this.layers;
    const candidates = this.candidates;
    let position = this.position;
    if (candidates === undefined) {
      if (this.seekIndex !== undefined || stack.length >= this.scanBelow) return undefined;
    } else {
      if (this.candidate >= candidates.length || !this.seekIndex!.isFor(stack)) return undefined;
      position = candidates[this.candidate];
    }
    return position < stack.length ? stack[position] : undefined;
  }

  /** Moves past the layer `peekLayer` returned, as `nextLayer` would have. */
  protected advance(): void {
    const candidates = this.candidates;
    if (candidates !== undefined) this.position = candidates[this.candidate++] + 1;
    else this.position++;
  }

  /** The layer last returned by `nextLayer` or passed by `advance` (the one calling `next`), if any. */
  protected previousLayer(): Layer | undefined {
    return this.position > 0 ? this.layers[this.position - 1] : undefined;
  }

  /** Whether every layer has been looked at. */
  protected get exhausted(): boolean {
    return this.position >= this.layers.length;
  }

  /**
   * Narrows the walk to the layers that may match `path`, from the current position on.
   * Called before each walk: a middleware may have rewritten `req.url` since the last.
   */
  protected seek(path: string): void {
    // The same path as at the last layer, and the stack as indexed (a chain of middleware
    // calling next()): the candidates stand, and `candidate` already points past the
    // layer last returned. Otherwise (a new path, which includes each request's first
    // layer, or an edit) the index is asked again, and built again if it must be.
    const seen = this.seekIndex;
    if (seen === undefined) {
      // A stack too small to index (most routers), or one of middleware only, is scanned
      // whole, whatever the path: there is nothing to narrow, at every layer of every request.
      if (this.candidates === undefined && this.layers.length < this.scanBelow) return;
    } else if (path === this.seekPath && seen.isFor(this.layers)) return;
    this.reseek(path);
  }

  /** The index for the stack as it is now, and its candidates for `path`. Out of line: see `seek`. */
  private reseek(path: string): void {
    const owner = this.owner;
    const index = (owner[kLayerIndex] = LayerIndex.for(this.layers, owner[kLayerIndex]));
    if (index !== undefined && !index.narrows) {
      // Scanned like a small stack, until it grows (a scan is always right; the index only saves work).
      this.scanBelow = index.scanBelow;
      this.seekIndex = undefined;
      this.candidates = undefined;
      return;
    }
    this.seekIndex = index;
    this.seekPath = path;
    this.candidates = index?.candidates(path);
    this.candidate = this.candidates === undefined ? 0 : firstAtLeast(this.candidates, this.position);
  }

  /** The next layer that may match, or undefined at the end of the stack. */
  protected nextLayer(): Layer | undefined {
    const stack = this.layers;
    const candidates = this.candidates;
    if (candidates !== undefined) {
      if (this.candidate >= candidates.length) {
        this.position = stack.length;
        return undefined;
      }
      this.position = candidates[this.candidate++];
    }
    if (this.position >= stack.length) return undefined;
    return stack[this.position++];
  }
}
