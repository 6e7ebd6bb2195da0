/**
 * onHeaders: the listener sees the headers given to `writeHead` in every form
 * Node accepts, as on-headers 1.0 (Connect 2.30's) lets it.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { describe, it } from 'node:test';
import { onHeaders } from '../../src/middleware/on-headers';
import { comparable, rawRequest, withServer, type RawResponse } from './support';

const connectDir = require.resolve('connect/package.json').replace(/package\.json$/, '');
const theirOnHeaders: typeof onHeaders = require(require.resolve('on-headers', { paths: [connectDir] }));

type HeaderForm = [string, (res: http.ServerResponse) => void];

// Node also takes a flat [name, value, ...] list, which on-headers 1.0 throws on: tested on its own below.
const flat: HeaderForm = [
  'flat',
  (res) => res.writeHead(202, ['X-A', '1', 'X-B', '2'] as unknown as http.OutgoingHttpHeaders),
];
const forms: HeaderForm[] = [
  [
    'pairs',
    (res) =>
      res.writeHead(201, [
        ['X-A', '1'],
        ['X-B', '2'],
      ] as unknown as http.OutgoingHttpHeaders),
  ],
  [
    'reason and pairs',
    (res) =>
      res.writeHead(203, 'Custom Reason', [
        ['X-A', '1'],
        ['X-B', '2'],
      ] as unknown as http.OutgoingHttpHeaders),
  ],
  ['object', (res) => res.writeHead(200, { 'X-A': '1', 'X-B': '2' })],
];

function app(hook: typeof onHeaders): http.RequestListener {
  return (req, res) => {
    hook(res, function () {
      // What the listener can read and change: the headers and status from writeHead.
      this.setHeader('X-Seen', `${this.getHeader('x-a')},${this.getHeader('x-b')},${this.statusCode}`);
      this.removeHeader('X-B');
    });
    const form = [...forms, flat].find(([name]) => req.url === '/' + encodeURIComponent(name));
    if (!form) return res.writeHead(404).end();
    form[1](res);
    res.end('body');
  };
}

async function run(hook: typeof onHeaders, names = forms.map(([name]) => name)): Promise<RawResponse[]> {
  return withServer(app(hook), async (port) => {
    const out: RawResponse[] = [];
    for (const name of names) out.push(await rawRequest(port, { path: '/' + encodeURIComponent(name) }));
    return out;
  });
}

describe('onHeaders', () => {
  it('applies writeHead headers (pairs, a flat list or an object) before the listener, as on-headers 1.0', async () => {
    const expected = await run(theirOnHeaders);
    const actual = await run(onHeaders);
    assert.deepEqual(actual.map(comparable), expected.map(comparable));
    assert.deepEqual(
      actual.map((res) => [res.status, res.headers['x-seen'], res.headers['x-b']]),
      [
        [201, '1,2,201', undefined],
        [203, '1,2,203', undefined],
        [200, '1,2,200', undefined],
      ],
    );
  });

  it('applies a flat [name, value, ...] list, which Node accepts too', async () => {
    const [res] = await run(onHeaders, ['flat']);
    assert.deepEqual(
      [res.status, res.headers['x-a'], res.headers['x-seen'], res.headers['x-b'], res.body],
      [202, '1', '1,2,202', undefined, 'body'],
    );
  });
});

describe('onHeaders when the headers given to writeHead are refused', () => {
  it('runs the listener for the head written in their place (the error page), as on-headers 1.0', async () => {
    const refusing =
      (hook: typeof onHeaders): http.RequestListener =>
      (_req, res) => {
        hook(res, function () {
          this.setHeader('X-Seen', String(this.statusCode));
        });
        try {
          // Node refuses a line break in a value: writeHead throws before any head goes out.
          res.writeHead(200, { 'X-A': 'a\nb' });
        } catch {
          res.writeHead(500).end('error page');
        }
      };
    const answers = await Promise.all(
      [onHeaders, theirOnHeaders].map((hook) => withServer(refusing(hook), (port) => rawRequest(port, { path: '/' }))),
    );
    assert.deepEqual(comparable(answers[0]), comparable(answers[1]));
    assert.deepEqual([answers[0].status, answers[0].headers['x-seen'], answers[0].body], [500, '500', 'error page']);
  });
});
