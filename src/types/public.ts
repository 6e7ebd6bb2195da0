/**
 * The public types of `webapp`, named and shaped as users know them from
 * @types/express (written here, not copied), so typed Express 4 code compiles
 * unchanged. They describe the runtime objects from the outside: the runtime
 * modules keep their own, narrower internal types.
 *
 * The global `Express` interfaces are declared (empty) and extended, so the
 * augmentation apps and passport do (`namespace Express { interface Request
 * { user?: User } }`) reaches webapp's `Request` too.
 */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    // Empty on purpose: they exist to be augmented by users and middleware.
    /* eslint-disable @typescript-eslint/no-empty-object-type */
    interface Request {}
    interface Response {}
    interface Locals {}
    interface Application {}
    /* eslint-enable @typescript-eslint/no-empty-object-type */
  }
}

export * from './handlers';
export * from './router';
export * from './route';
export * from './request';
export * from './response';
export * from './application';
export * from './mime';
