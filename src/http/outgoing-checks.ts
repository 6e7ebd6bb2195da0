/**
 * Node's own checks of what an app writes, made where Node would not make them (a
 * response that compresses, an HTTP/2 response): a throwaway HTTP/1 message given the
 * same input throws the error Node's HTTP/1 response throws, code and message alike,
 * and keeps nothing.
 */
import { OutgoingMessage } from 'node:http';
import { isUint8Array } from 'node:util/types';

/**
 * Throws what Node's `write` and `end` throw for a chunk they cannot send: a number, a
 * plain object, a DataView, null to `write`.
 */
export function assertSendable(chunk: unknown): void {
  if (typeof chunk === 'string' || isUint8Array(chunk)) return;
  // Only a chunk Node refuses gets here: its `write` throws before it would write a head.
  new OutgoingMessage().write(chunk as string);
}

/**
 * Throws what Node's `addTrailers` throws for trailers it cannot send: a name that is
 * not a token, a value with a CR, LF or other control character.
 */
export function assertTrailers(headers: object): void {
  new OutgoingMessage().addTrailers(headers as Record<string, string>);
}
