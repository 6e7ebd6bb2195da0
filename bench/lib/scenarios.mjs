// The workloads. Each scenario names the server kind it needs (bench/servers/*
// take the kind as argv[2]), the request the load generator repeats, and a check
// of one response made before measuring, so a server that answers wrongly (a 404
// is fast) is reported instead of ranked.
import { deepStrictEqual } from 'node:assert/strict';

const ROUTE_HIT = '/route999/42';

function expectText(expected) {
  return ({ status, body }) => {
    if (status !== 200) return `status ${status}`;
    const text = body.toString('utf8');
    return text === expected ? null : `body ${JSON.stringify(text.slice(0, 60))}, expected ${JSON.stringify(expected)}`;
  };
}

function expectJson(expected) {
  return ({ status, body }) => {
    if (status !== 200) return `status ${status}`;
    try {
      deepStrictEqual(JSON.parse(body.toString('utf8')), expected);
      return null;
    } catch {
      return `body ${JSON.stringify(body.toString('utf8').slice(0, 60))}`;
    }
  };
}

function expectFile(fixtureName) {
  return ({ status, body }, fixtures) => {
    if (status !== 200) return `status ${status}`;
    const expected = fixtures.files[fixtureName];
    return body.equals(expected) ? null : `body of ${body.length} bytes differs from the ${expected.length}-byte file`;
  };
}

function expectCount(payloadName) {
  return ({ status, body }, fixtures) => {
    if (status !== 200) return `status ${status}`;
    const expected = { count: fixtures.payloads[payloadName].count };
    try {
      deepStrictEqual(JSON.parse(body.toString('utf8')), expected);
      return null;
    } catch {
      return `body ${JSON.stringify(body.toString('utf8').slice(0, 60))}, expected ${JSON.stringify(expected)}`;
    }
  };
}

export const SCENARIOS = [
  { id: 'hello', kind: 'hello', title: "GET / → 'Hello World'", method: 'GET', path: '/', check: expectText('Hello World') },
  { id: 'json', kind: 'json', title: 'GET /json → {hello:"world"}', method: 'GET', path: '/json', check: expectJson({ hello: 'world' }) },
  { id: 'routes', kind: 'routes', title: `1,000 routes /routeN/:id, GET ${ROUTE_HIT} (the last)`, method: 'GET', path: ROUTE_HIT, check: expectText('42') },
  { id: 'body-1kb', kind: 'body', title: 'POST /body, 1 KB JSON through the JSON parser', method: 'POST', path: '/body', payload: '1kb', check: expectCount('1kb') },
  { id: 'body-100kb', kind: 'body', title: 'POST /body, 100 KB JSON through the JSON parser', method: 'POST', path: '/body', payload: '100kb', check: expectCount('100kb') },
  { id: 'static-4kb', kind: 'static', title: 'GET /static/small.txt, a 4 KB file', method: 'GET', path: '/static/small.txt', check: expectFile('small.txt') },
  { id: 'static-1mb', kind: 'static', title: 'GET /static/large.bin, a 1 MB file', method: 'GET', path: '/static/large.bin', check: expectFile('large.bin') },
];
