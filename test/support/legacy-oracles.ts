/**
 * express@3.21 as an oracle for webapp/v3. Loading it loads Connect 2.30, which
 * patches Node's `http.ServerResponse.prototype` for the whole process (Set-Cookie
 * accumulation, `res.charset`, `res.headerSent`, `res.on('header')`). Left there,
 * the patch would serve webapp/v3's responses too and hide every difference in
 * those areas. So it is moved: Node's prototype gets its own members back, and
 * the patch sits between express@3's response prototype and Node's, where every
 * express@3 response still finds it.
 *
 * Import this module before anything else in the process loads `express3` or `connect`.
 */
import { ServerResponse } from 'node:http';
import webapp3 = require('../../src/v3/index');
import type { FrameworkPair } from './differential';

type Descriptors = Map<string | symbol, PropertyDescriptor>;

function ownDescriptors(target: object): Descriptors {
  const out: Descriptors = new Map();
  for (const key of Reflect.ownKeys(target)) out.set(key, Object.getOwnPropertyDescriptor(target, key)!);
  return out;
}

const nodeResponse = ServerResponse.prototype;
if ((nodeResponse as { _hasConnectPatch?: boolean })._hasConnectPatch) {
  throw new Error('Connect was loaded before test/support/legacy-oracles: its process-wide patch cannot be moved');
}
const before = ownDescriptors(nodeResponse);
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const express3: any = require('express3');

/** Connect's patch, as a prototype of its own above Node's. */
const connectResponse = Object.create(nodeResponse) as object;
for (const [key, descriptor] of ownDescriptors(nodeResponse)) {
  const original = before.get(key);
  if (original && original.value === descriptor.value && original.get === descriptor.get) continue;
  Object.defineProperty(connectResponse, key, descriptor);
  if (original) Object.defineProperty(nodeResponse, key, original);
  else Reflect.deleteProperty(nodeResponse, key);
}
Object.setPrototypeOf(express3.response, connectResponse);

/** express@3.21 as the oracle, webapp/v3 as the subject. */
export const express3Pair: FrameworkPair = { oracle: express3, subject: webapp3 };
