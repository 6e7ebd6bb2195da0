/** res.sendStatus(code): the status with its registered phrase (or the number) as a text body. */
import { describe, it } from 'node:test';
import request from 'supertest';
import { appWith } from './support';

describe('res.sendStatus', () => {
  const app = appWith((a) =>
    a.get('/:code', (req, res) => {
      res.sendStatus(Number(req.params.code));
    }),
  );

  it('sends the registered phrase as text/plain', async () => {
    await request(app).get('/201').expect(201).expect('Content-Type', 'text/plain; charset=utf-8').expect('Created');
    await request(app).get('/418').expect(418, "I'm a Teapot");
  });

  it('sends the number for an unknown code', async () => {
    await request(app).get('/599').expect(599, '599');
    await request(app).get('/299').expect(299, '299');
  });

  it('sends no body for 204', async () => {
    await request(app).get('/204').expect(204, '');
  });
});
