/**
 * Mount paths: a `use` layer at `/admin` runs with `/admin` taken off the front of
 * `req.url` and added to `req.baseUrl`, and both are put back when it calls `next`,
 * as Express's router does. An absolute-form request-target (`http://host/admin/x`)
 * keeps its `scheme://host` in front of the stripped path.
 */
import type { IncomingMessage } from 'node:http';

/** What stripping a mount path reads and writes: the walk of the router whose layer it is (Dispatch). */
export interface MountState {
  readonly req: IncomingMessage & { baseUrl?: string };
  /** `scheme://host` of an absolute-form request-target, kept in front of the path when a mount path is stripped. */
  readonly protohost: string;
  /** `req.baseUrl` as the request entered the router. */
  readonly parentUrl: string;
  /** The mount path stripped from `req.url` for the layer running now ('' when none). */
  removed: string;
  /** Whether a `/` was put in front of what was left, which did not start with one (nothing, `?...` or `.ext`). */
  slashAdded: boolean;
}

/** The `scheme://host` of an absolute-form request-target, or undefined for any other (`/path`, `*`). */
export function getProtohost(url: string | undefined): string | undefined {
  if (typeof url !== 'string' || url.length === 0 || url.charCodeAt(0) === 0x2f /* / */) return undefined;
  const searchIndex = url.indexOf('?');
  const pathLength = searchIndex !== -1 ? searchIndex : url.length;
  const fqdnIndex = url.slice(0, pathLength).indexOf('://');
  return fqdnIndex !== -1 ? url.substring(0, url.indexOf('/', 3 + fqdnIndex)) : undefined;
}

/**
 * A `use` layer sees the request URL without its mount path (never empty here: `enter`
 * skips the call for a layer at `/`), and `req.baseUrl` with it; `restoreUrl` puts both
 * back. False when the path does not end at a segment boundary after the mount path
 * (`/admin` does not mount `/administrator`).
 */
export function stripMountPath(dispatch: MountState, layerPath: string, path: string): boolean {
  // `startsWith` and char codes: a slice or a one-character string to compare would be
  // allocated at every mount path a request goes through.
  if (!path.startsWith(layerPath)) return false;
  const c = path.charCodeAt(layerPath.length);
  if (path.length > layerPath.length && c !== 0x2f /* / */ && c !== 0x2e /* . */) return false;
  const req = dispatch.req;
  const protohost = dispatch.protohost;
  dispatch.removed = layerPath;
  const rest = req.url!.slice(protohost.length + layerPath.length);
  if (protohost.length !== 0) req.url = protohost + rest;
  else if (rest.charCodeAt(0) === 0x2f) req.url = rest;
  else {
    req.url = '/' + rest;
    dispatch.slashAdded = true;
  }
  req.baseUrl = dispatch.parentUrl + (layerPath[layerPath.length - 1] === '/' ? layerPath.slice(0, -1) : layerPath);
  return true;
}

/** Undoes `stripMountPath` when the layer it ran for calls `next`. */
export function restoreUrl(dispatch: MountState): void {
  const req = dispatch.req;
  if (dispatch.slashAdded) {
    req.url = req.url!.slice(1);
    dispatch.slashAdded = false;
  }
  if (dispatch.removed.length !== 0) {
    const protohost = dispatch.protohost;
    req.baseUrl = dispatch.parentUrl;
    req.url = protohost + dispatch.removed + req.url!.slice(protohost.length);
    dispatch.removed = '';
  }
}
