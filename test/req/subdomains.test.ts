/** req.subdomains with `subdomain offset`. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeRequest } from './fake';

const subdomains = (host: string | undefined, offset = 2) =>
  fakeRequest({ headers: host === undefined ? {} : { host }, settings: { 'subdomain offset': offset } }).subdomains;

describe('req.subdomains', () => {
  it('lists the parts before the domain, nearest first', () => {
    assert.deepEqual(subdomains('tobi.ferrets.example.com'), ['ferrets', 'tobi']);
    assert.deepEqual(subdomains('example.com'), []);
    assert.deepEqual(subdomains('tobi.ferrets.example.com:3000'), ['ferrets', 'tobi']);
  });

  it('honours subdomain offset', () => {
    assert.deepEqual(subdomains('tobi.ferrets.example.co.uk', 3), ['ferrets', 'tobi']);
    assert.deepEqual(subdomains('tobi.ferrets.example.com', 0), ['com', 'example', 'ferrets', 'tobi']);
  });

  it('gives none for IP hosts', () => {
    assert.deepEqual(subdomains('127.0.0.1'), []);
    assert.deepEqual(subdomains('127.0.0.1', 0), ['127.0.0.1']);
    assert.deepEqual(subdomains('[::1]:3000'), []);
  });

  it('is empty without a Host', () => {
    assert.deepEqual(subdomains(undefined), []);
  });
});
