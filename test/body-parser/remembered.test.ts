/**
 * What the parsers remember between requests (the Content-Type match, its
 * charset, the decoder per charset) never changes an answer: many distinct
 * values, more than are kept, one after another on one keep-alive connection,
 * each answered as on its own, and the first values again afterwards.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import bodyParser = require('../../src/body-parser/index');
import { exchange, request, type Answer, type Pieces } from './connection';
import { sharedParserServer, type Parser } from './support';

const json = bodyParser.json({ type: ['application/json', 'application/*+json'] });
const text = bodyParser.text();
const shared = sharedParserServer(json);

/** Every request on one connection, answered in order. */
function answers(parser: Parser, requests: Pieces[]): Promise<Answer[]> {
  shared.parser = parser;
  return exchange(shared.port, requests);
}

const parsed = (body: unknown) => ({ status: 200, body: { body, proto: null } });

describe('body parsers: remembered Content-Types and charsets', () => {
  it('matches each of 150 distinct Content-Types as on its own, then the first ones again', async () => {
    const types: string[] = [];
    for (let i = 0; i < 50; i++) {
      types.push(`application/json; v=${i}`, `application/v${i}+json`, `text/v${i}`);
    }
    const requests = [...types, ...types.slice(0, 6)].map((type) => request({ 'Content-Type': type }, '{"a":1}'));
    const got = await answers(json, requests);
    const expected = [...types, ...types.slice(0, 6)].map((type) =>
      type.startsWith('text/') ? parsed({}) : parsed({ a: 1 }),
    );
    assert.deepEqual(got, expected);
  });

  it('decodes each charset as on its own, across more labels than are kept, then utf-8 again', async () => {
    const labels: Array<[string, Buffer, Answer]> = [];
    for (let i = 0; i < 70; i++) {
      labels.push([`x-unknown-${i}`, Buffer.from('a'), { status: 415, body: {} }]);
    }
    labels.push(['UTF-16LE', Buffer.from('ü€', 'utf16le'), parsed('ü€')]);
    labels.push(['latin1', Buffer.from([0xe9]), parsed('é')]);
    labels.push(['utf-8', Buffer.from('\ufeffü'), parsed('ü')]);
    labels.push(['x-unknown-0', Buffer.from('a'), { status: 415, body: {} }]);
    labels.push(['Utf-8', Buffer.from('€'), parsed('€')]);
    const got = await answers(
      text,
      labels.map(([label, bytes]) => request({ 'Content-Type': `text/plain; charset=${label}` }, bytes)),
    );
    labels.forEach(([label, , expected], i) => {
      assert.equal(got[i].status, expected.status, label);
      if (expected.status === 200) assert.deepEqual(got[i], expected, label);
      else assert.equal(got[i].body.type, 'charset.unsupported', label);
    });
  });

  it('follows a type list changed after the parser was made, as body-parser reads it anew', async () => {
    const types = ['application/json'];
    const listed = bodyParser.json({ type: types });
    const vendor = request({ 'Content-Type': 'application/vnd.api+json' }, '{"a":1}');
    const plain = request({ 'Content-Type': 'application/json' }, '{"a":1}');
    const [before] = await answers(listed, [vendor]);
    types.push('application/vnd.api+json');
    const [added] = await answers(listed, [vendor]);
    types.splice(0, types.length, 'application/vnd.api+json');
    const [replaced, dropped] = await answers(listed, [vendor, plain]);
    assert.deepEqual([before, added, replaced, dropped], [parsed({}), parsed({ a: 1 }), parsed({ a: 1 }), parsed({})]);
  });
});
