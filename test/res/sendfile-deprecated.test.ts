import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import request from 'supertest';
import webapp = require('../../src/index');

describe('res.sendfile (4.x)', () => {
  it('is the deprecated alias Express 4 keeps: it sends the file and warns once', async () => {
    const warnings: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (typeof chunk === 'string' && chunk.includes('deprecated')) {
        warnings.push(chunk);
        return true;
      }
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
    try {
      const app = webapp();
      const file = require.resolve('../../package.json');
      app.get('/', (_req: unknown, res: { sendfile(path: string): void }) => res.sendfile(file));
      const res = await request(app).get('/').expect(200);
      assert.match(res.text, /"name": "webapp"/);
    } finally {
      process.stderr.write = write;
    }
    assert.ok(warnings.some((w) => w.includes('webapp deprecated res.sendfile: Use res.sendFile instead')), warnings.join(''));
  });
});
