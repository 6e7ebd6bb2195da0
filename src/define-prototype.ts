/**
 * The one way webapp declares the objects Express code sees, patches and walks.
 *
 * Which shape for what, and why:
 * - The request and response prototypes (4.x and 3.x) and the application
 *   prototypes are plain objects made by `definePrototype(base, members)`. Users
 *   patch them (`app.request.user = ...`, passport does), requests and responses
 *   take them (or an app's object below them) as prototypes by a plain swap, and
 *   `Object.keys(app.response)`, `for (key in req)` and `'json' in res` must list
 *   what Express lists. A class would hide methods from enumeration and cannot
 *   be a prototype of Node's objects without a constructor call.
 * - Callable objects are functions with members: an app (a request handler, the
 *   app prototype mixed in per app), a router (whose prototype is the `Router`
 *   factory itself, as in Express), and the module exports (`webapp`,
 *   `webapp/v3`). Their members are installed by `defineMembers(fn, members)`.
 * - Objects with per-instance state that nobody calls or walks (Layer, Route,
 *   Router3, Route3, Dispatch, LayerCursor) are classes. (Not View: view
 *   plug-ins subclass Express's the ES5 way, `View.call(this, ...)`, which a
 *   class refuses; src/view.ts.) Only their
 *   members generated from the HTTP method list (`route.get(...)`...) are
 *   installed here (`defineClassMembers`), with the attributes Express's
 *   assignments give them, and the methods Express's prototypes list made
 *   enumerable (`enumerateClassMethods`).
 *
 * Attributes are those Express's own declarations make, so that code which
 * enumerates or redefines members sees the same object:
 * - `methods`: data members, writable, enumerable, configurable (as plain
 *   assignment creates them);
 * - `aliases`: a second name for a member installed before (`req.header` for
 *   `req.get`), with the same attributes;
 * - `values`: other data members (a module's exports, `res.charset`), the same again;
 * - `getters`: computed members, enumerable and configurable, with a setter when given one;
 * - `hidden`: getters left out of enumeration, configurable (`app.router`, and
 *   Express's throwing stand-ins for middleware that moved away).
 * Members are installed in that group order, each group in its record's order:
 * that is the order `Object.keys` and `for...in` show.
 *
 * The per-app objects take the same path: `app.request`/`app.response` are
 * `definePrototype(request, { values: { app } })`, `app.router` a hidden getter.
 * Everything here runs once, at load (or once per app); nothing runs per request.
 */

import { lazy } from './http/lazy';

/** A function of any signature; `this` and parameters are the caller's business. */
type AnyFunction = (this: never, ...args: never[]) => unknown;
type Getter = (this: never) => unknown;
type Setter = (this: never, value: never) => void;

/** The members of a prototype or a callable object, by kind (see the module comment). */
export interface Members {
  /** The object's methods. */
  methods?: Record<string, AnyFunction>;
  /** Second names: `alias: 'member'` installs `alias` with `member`'s value. */
  aliases?: Record<string, string>;
  /** Other data members: a module's exports, a default value (`res.charset`). */
  values?: Record<string, unknown>;
  /** Computed members: a getter, or a getter with a setter. */
  getters?: Record<string, Getter | { get: Getter; set: Setter }>;
  /** Getters that enumeration does not list. */
  hidden?: Record<string, Getter>;
}

/**
 * The descriptors every member is defined with, refilled for each: a fresh object
 * literal per member was most of what defining them allocated at load (with
 * `Object.entries`' pairs), and load-time garbage counts: it is what brings on the
 * first scavenges before a server's first answer (bench/README.md, "Cold start:
 * the garbage of defining members").
 */
const dataMember: PropertyDescriptor = { configurable: true, enumerable: true, writable: true, value: undefined };
const accessorMember: PropertyDescriptor = { configurable: true, enumerable: true, get: undefined, set: undefined };

function defineData(target: object, name: string, enumerable: boolean, value: unknown): void {
  dataMember.enumerable = enumerable;
  dataMember.value = value;
  Object.defineProperty(target, name, dataMember);
  dataMember.value = undefined;
}

function defineValue(target: object, name: string, value: unknown): void {
  defineData(target, name, true, value);
}

/**
 * Defines a writable, configurable data member that enumeration does not list: an
 * object's own bookkeeping that `Object.keys`, `JSON.stringify` and `console.log` of it
 * should not show (a router layer's fields beyond Express's).
 */
export function defineHiddenValue(target: object, name: string, value: unknown): void {
  defineData(target, name, false, value);
}

function defineAccessor(target: object, name: string, enumerable: boolean, get: Getter, set: Setter | undefined): void {
  accessorMember.enumerable = enumerable;
  accessorMember.get = get;
  accessorMember.set = set;
  Object.defineProperty(target, name, accessorMember);
  accessorMember.get = accessorMember.set = undefined;
}

/**
 * Installs `members` on `target` (a function, a class prototype, a module export) and returns it.
 * Indexed loops over `Object.keys`: this runs once, before any of it is optimized, and
 * an interpreted `for...of` allocates a result object per step.
 */
export function defineMembers<T extends object>(target: T, members: Members): T {
  const { methods, aliases, values, getters, hidden } = members;
  if (methods !== undefined) {
    const names = Object.keys(methods);
    for (let i = 0; i < names.length; i++) defineValue(target, names[i], methods[names[i]]);
  }
  if (aliases !== undefined) {
    const names = Object.keys(aliases);
    for (let i = 0; i < names.length; i++)
      defineValue(target, names[i], (target as Record<string, unknown>)[aliases[names[i]]]);
  }
  if (values !== undefined) {
    const names = Object.keys(values);
    for (let i = 0; i < names.length; i++) defineValue(target, names[i], values[names[i]]);
  }
  if (getters !== undefined) {
    const names = Object.keys(getters);
    for (let i = 0; i < names.length; i++) {
      const accessor = getters[names[i]];
      if (typeof accessor === 'function') defineAccessor(target, names[i], true, accessor, undefined);
      else defineAccessor(target, names[i], true, accessor.get, accessor.set);
    }
  }
  if (hidden !== undefined) {
    const names = Object.keys(hidden);
    for (let i = 0; i < names.length; i++) defineAccessor(target, names[i], false, hidden[names[i]], undefined);
  }
  return target;
}

/**
 * `defineMembers` for a class's prototype (Route's and Router3's HTTP-method members).
 * V8 keeps a class prototype's properties in fast mode from the start, and adding
 * members one at a time to such an object copies its property list at each: Route's
 * 35 cost 27 KB of young-generation memory at load (Node 20 and 26). Deleting a
 * property puts the object in dictionary mode first, where the same members cost
 * 5 KB; V8 turns a prototype back to fast mode the first time a property lookup
 * goes through it, so calls on the instances are compiled as before.
 */
export function defineClassMembers(Class: { prototype: object }, members: Members): void {
  const proto = Class.prototype as Record<string, unknown>;
  // Two, and the first deleted: deleting only the last property added can undo its
  // addition without leaving fast mode.
  proto.__webappSetupFirst = undefined;
  proto.__webappSetupSecond = undefined;
  delete proto.__webappSetupFirst;
  delete proto.__webappSetupSecond;
  defineMembers(proto, members);
}

/**
 * Makes methods of a class enumerable, in `names`' order after its other enumerable
 * members, as the prototype assignments of Express's constructors give them (Layer's,
 * Route's): code lists them, or copies them onto a prototype of its own
 * (`Object.assign(MyLayer.prototype, Layer.prototype)`). Deleted and defined again, as
 * a class defines its methods in source order and not enumerable.
 */
export function enumerateClassMethods(Class: { prototype: object }, names: readonly string[]): void {
  const proto = Class.prototype as Record<string, unknown>;
  for (let i = 0; i < names.length; i++) {
    const method = proto[names[i]];
    delete proto[names[i]];
    defineValue(proto, names[i], method);
  }
}

/**
 * Stand-ins for a group of methods whose module a first request does not need
 * (cold start: `res.redirect`, `res.sendFile`, `res.format`, `res.cookie`...).
 * Each loads the group on its first call and forwards to the method of that name.
 * The stand-ins stay the members: code that saved `res.redirect`, or patched it and
 * calls the original, gets the same function each time. `arities` names every
 * method of the group with its `length` (Express's, which callers may inspect);
 * a test compares both with the loaded group.
 */
export function lazyMethods<T extends Record<string, AnyFunction>>(
  arities: { readonly [K in keyof T]: number },
  load: () => T,
): T {
  const group = lazy(load);
  const methods: Record<string, AnyFunction> = {};
  for (const [name, arity] of Object.entries(arities)) {
    // A computed method name gives the stand-in the member's `name`.
    const standIn = {
      [name](this: never, ...args: never[]) {
        return (group()[name] as (...rest: never[]) => unknown).apply(this, args);
      },
    }[name]!;
    Object.defineProperty(standIn, 'length', { value: arity });
    methods[name] = standIn;
  }
  return methods as T;
}

/** A function member loaded on its first call (see defineLazyFunctions). */
export interface LazyFunction {
  load: () => unknown;
  /** The loaded function's `name` and `length`, given to the stand-in. */
  name: string;
  arity: number;
  /** The loaded function's own properties (`static.mime`), read and written through. */
  properties?: readonly string[];
}

type Callable = (this: unknown, ...args: unknown[]) => unknown;

/**
 * Function members loaded on first call (cold start: `webapp.json` should not load the
 * body parsers for an app that never calls it). Each is a plain data member, writable,
 * enumerable and configurable, as Express's `express.json` is, holding a stand-in of the
 * function's name and arity that loads it on its first call and forwards every call to
 * it (`new` too: code written for Express 3 calls `new express.static(dir)`). A member
 * loaded on first read (a getter) would be skipped by Jest's automock, mocked as
 * undefined by Vitest's, and left in place by sinon's `stub(express, 'static')`, which
 * all replace an object's plain members.
 */
export function defineLazyFunctions(target: object, members: Record<string, LazyFunction>): void {
  for (const [key, member] of Object.entries(members)) {
    const loaded = lazy(member.load as () => Callable);
    // A computed method name gives the stand-in the function's `name`.
    const standIn = {
      [member.name]: function (this: unknown, ...args: unknown[]): unknown {
        return new.target ? Reflect.construct(loaded(), args) : loaded().apply(this, args);
      },
    }[member.name]!;
    Object.defineProperty(standIn, 'length', { value: member.arity });
    for (const property of member.properties ?? []) {
      Object.defineProperty(standIn, property, {
        enumerable: true,
        configurable: true,
        get: () => (loaded() as unknown as Record<string, unknown>)[property],
        set: (value: unknown) => {
          (loaded() as unknown as Record<string, unknown>)[property] = value;
        },
      });
    }
    defineValue(target, key, standIn);
  }
}

/** The getters `defineLazyMembers` made, for `isLazyMember`. */
const lazyGetters = new WeakSet<Getter>();

/**
 * Members loaded on first read: `loaders[name]()` is called by the first read of
 * `name` (cold start: `require('webapp/middleware').multipart` should not load what its
 * user never reads), and the member stays a getter without a setter, returning what the
 * first read loaded, as Connect 2's bundle in Express 3 defines its middleware.
 * Enumerable and configurable, in `loaders`' order.
 */
export function defineLazyMembers(target: object, loaders: Record<string, () => unknown>): void {
  for (const [name, load] of Object.entries(loaders)) {
    const get: Getter = lazy(load);
    lazyGetters.add(get);
    Object.defineProperty(target, name, { configurable: true, enumerable: true, get });
  }
}

/** Whether `target[name]` is a member `defineLazyMembers` made and nobody has read yet (scripts/build.mjs asks). */
export function isLazyMember(target: object, name: string): boolean {
  const get = Object.getOwnPropertyDescriptor(target, name)?.get;
  return get !== undefined && lazyGetters.has(get);
}

/** A new prototype object over `base`, carrying `members`. `T` is the type the caller declares for it. */
export function definePrototype<T extends object>(base: object | null, members: Members): T {
  return defineMembers(Object.create(base) as T, members);
}
