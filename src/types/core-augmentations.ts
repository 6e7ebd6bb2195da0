/**
 * What apps add to @types/express-serve-static-core's interfaces, as they write it
 * for Express (`declare module 'express-serve-static-core' { interface Request {
 * tenant?: Tenant } }`), reaches webapp's `Request`, `Response` and `Locals` too.
 *
 * That package is optional: without it (no @types/express in the project) webapp's
 * declarations must still compile, so an unresolved import below is ignored (the
 * directive is a JSDoc comment because declaration emit keeps those), its types are
 * then `any`, and the additions are empty.
 */
// Not @ts-expect-error: there is no error to expect where the package is installed.
// eslint-disable-next-line @typescript-eslint/ban-ts-comment
/** @ts-ignore @types/express-serve-static-core is optional. */
import type * as core from 'express-serve-static-core';
import type { CoreRequest } from './request';
import type { CoreResponse } from './response';

/**
 * True for `any`: what the types of an unresolved import are. In a tuple: bare, the
 * test of an unresolved import's type (an error type, not quite `any`) came out as that
 * type too, and so did every conditional reading it, which left webapp's `Request` with
 * none of the global namespace's members.
 */
type Unresolved<T> = [0] extends [1 & T] ? true : false;

// The members core's interfaces have beyond webapp's own: the app's augmentations,
// and the global `Express.Request`/`Express.Response` members (passport's `user`,
// express-session's `session`, multer's `file`) as core's interfaces see them: an app
// may narrow one there (`user?: User & { roles: string[] }`), and the narrowed type is
// the one handlers get, as with @types/express. (Webapp's own interfaces do not extend
// the global ones for that reason: the global member would be theirs, the narrowed one
// dropped here.) Without the package, the global interfaces' members alone.
// Read without type arguments, so that any version of the package fits (an
// augmentation only sees the type parameters if it repeats them, which is rare); a
// method returning `this` returns core's type.
export type CoreRequestAdditions =
  Unresolved<core.Request> extends true
    ? Omit<Express.Request, keyof CoreRequest>
    : Omit<core.Request, keyof CoreRequest>;
export type CoreResponseAdditions =
  Unresolved<core.Response> extends true
    ? Omit<Express.Response, keyof CoreResponse>
    : Omit<core.Response, keyof CoreResponse>;
/* eslint-disable-next-line @typescript-eslint/no-empty-object-type */
export type CoreLocalsAdditions = Unresolved<core.Locals> extends true ? {} : core.Locals;
