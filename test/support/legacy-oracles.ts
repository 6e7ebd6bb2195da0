/**
 * express@3.21 and Connect 2.30 as oracles. Loading them patches Node's
 * `http.ServerResponse.prototype` for the whole process (Set-Cookie accumulation,
 * `res.charset`, `res.headerSent`, `res.on('header')`). Left there, the patch
 * would serve webapp's responses too and hide every difference in those areas.
 * So it is moved: Node's prototype gets its own members back, and the patch sits
 * on a prototype of its own that express@3's responses inherit from, and that
 * Connect apps' responses get through `patchedForConnect`.
 *
 * Import this module before anything else in the process loads `express3` or `connect`.
 */
import { ServerResponse, type IncomingMessage } from 'node:http';
import webapp3 = require('../../src/v3/index');
import type { FrameworkPair } from './differential';
import { markOracleListener } from './oracle-recording';

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

/** A Connect app's listener whose responses get Connect's patch, as in a 3.x process. */
export function patchedForConnect(listener: (req: IncomingMessage, res: ServerResponse) => void) {
  // Still the oracle for recording and replay, where Connect cannot run.
  return markOracleListener((req: IncomingMessage, res: ServerResponse) => {
    Object.setPrototypeOf(res, connectResponse);
    listener(req, res);
  });
}

/** express@3.21 as the oracle, webapp/v3 as the subject. */
export const express3Pair: FrameworkPair = { oracle: express3, subject: webapp3 };
