import { METHODS } from 'node:http';

/** Every HTTP method Node's parser knows, lower-cased: the names of `app.METHOD` / `router.METHOD`. */
export const methods: readonly string[] = METHODS.map((method) => method.toLowerCase());
