/**
 * The showcase against requests no page of it sends: form fields repeated or named with
 * brackets, request targets that are not paths, downloads that fail before their head, a
 * note deleted while its edit is on its way. Each gets a page of its own status and
 * message (never a 500, a stored array or a path of the server's disk), and the app keeps
 * serving.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startExample, type RunningExample } from '../support/example-server';
import { Visitor, titleOf } from './showcase-client';

const scratch = mkdtempSync(join(tmpdir(), 'showcase-hostile-'));
const dataDir = join(scratch, 'data');
let example: RunningExample;
let base: string;

before(async () => {
  example = await startExample('examples/showcase/server.js', {
    DATA_DIR: dataDir,
    SESSION_SECRET: 'test secret',
    NODE_ENV: 'production',
  });
  base = example.base;
});

after(() => {
  example?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

let visitors = 0;
async function member(): Promise<Visitor> {
  const visitor = new Visitor(base);
  await visitor.signUp(`hostile${++visitors}`);
  return visitor;
}

const attachmentFiles = () => readdirSync(join(dataDir, 'attachments'));

/** The text of the error page's message. */
const messageOf = (html: string) => /<p class="error-message">([^<]*)<\/p>/.exec(html)?.[1];

/** A multipart body of `fields` in their order, a name given twice sent twice. */
function multipart(fields: [string, string][]): FormData {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  return form;
}

/** Sends `head` as it is over a new connection; resolves with the whole answer once the server closes. */
async function raw(head: string): Promise<string> {
  const socket = connect(Number(new URL(base).port), '127.0.0.1');
  socket.setEncoding('utf8');
  let answer = '';
  socket.on('data', (chunk: string) => (answer += chunk));
  socket.end(head);
  await once(socket, 'close');
  return answer;
}

describe('showcase: form fields as no browser sends them', () => {
  it('refuses a sign-up or login whose username comes twice with the 400 page, and makes no account', async () => {
    const visitor = new Visitor(base);
    const hidden = await visitor.hiddenFields('/signup');
    const twice = new URLSearchParams({ ...hidden, password: 'correct horse', confirm: 'correct horse' });
    twice.append('username', 'twin1');
    twice.append('username', 'admin');
    const signup = await visitor.request('/signup', { method: 'POST', body: twice });
    assert.equal(signup.status, 400, signup.text);
    assert.equal(messageOf(signup.text), 'This form is damaged. Reload the page and send it again.');
    // Neither name was taken: both sign up on their own.
    await new Visitor(base).signUp('twin1');
    await new Visitor(base).signUp('admin');

    const login = new URLSearchParams({ ...(await visitor.hiddenFields('/login')), password: 'correct horse' });
    login.append('username', 'twin1');
    login.append('username', 'twin1');
    assert.equal((await visitor.request('/login', { method: 'POST', body: login })).status, 400);
    assert.equal((await visitor.logIn('twin1')).location, '/notes');
  });

  it('refuses a note whose fields are repeated or bracketed (ten million sparse slots): nothing stored', async () => {
    const visitor = await member();
    const hidden = Object.entries(await visitor.hiddenFields('/notes/new'));
    for (const fields of [
      [['title[9999999]', 'x']],
      [['title[a]', 'x']],
      [
        ['title', 'A'],
        ['title', 'B'],
      ],
      [
        ['title', 'A'],
        ['body', 'one'],
        ['body', 'two'],
      ],
    ] as [string, string][][]) {
      const page = await visitor.request('/notes', { method: 'POST', body: multipart([...hidden, ...fields]) });
      assert.equal(page.status, 400, `${JSON.stringify(fields)}: ${page.text.slice(0, 200)}`);
      assert.equal(titleOf(page.text), 'Bad Request');
    }
    assert.equal((await visitor.api('GET', '/api/notes')).json.total, 0);
    // The form as the page sends it still works.
    const created = await visitor.upload('/notes/new', '/notes', { title: 'Plain', body: 'text' });
    assert.equal(created.status, 302, created.text);
  });

  it('refuses a delete form whose token comes twice', async () => {
    const visitor = await member();
    const created = await visitor.upload('/notes/new', '/notes', { title: 'Kept', body: '' });
    const notePath = created.location!;
    const fields = new URLSearchParams();
    const { _csrf } = await visitor.hiddenFields(`${notePath}/delete`);
    fields.append('_csrf', _csrf);
    fields.append('_csrf', _csrf);
    const page = await visitor.request(`${notePath}/delete`, { method: 'POST', body: fields });
    assert.equal(page.status, 400);
    assert.equal((await visitor.get(notePath)).status, 200, 'the note is still there');
  });
});

describe('showcase: request targets that are not paths', () => {
  it('answers GET * and OPTIONS * with the 404 page, not a 500, and keeps serving', async () => {
    for (const method of ['GET', 'OPTIONS', 'POST']) {
      const answer = await raw(`${method} * HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
      assert.match(answer, /^HTTP\/1\.1 404 Not Found\r\n/, `${method} *: ${answer.slice(0, 200)}`);
      assert.match(answer, /There is no page at \*\./);
    }
    assert.equal((await new Visitor(base).get('/')).status, 200);
  });
});

describe('showcase: downloads that fail before their head', () => {
  it('answers a Range past the file with the 416 page as a page, not as a download of the file', async () => {
    const visitor = await member();
    const created = await visitor.upload(
      '/notes/new',
      '/notes',
      { title: 'Ten bytes', body: '' },
      { name: 'r.txt', type: 'text/plain', content: '0123456789' },
    );
    const answer = await visitor.request(`${created.location!}/attachment`, { headers: { Range: 'bytes=500-600' } });
    assert.equal(answer.status, 416);
    assert.match(answer.headers.get('content-type')!, /^text\/html/);
    assert.equal(answer.headers.get('content-disposition'), null);
    assert.equal(answer.headers.get('last-modified'), null);
    assert.equal(answer.headers.get('content-range'), 'bytes */10');
    assert.equal(titleOf(answer.text), 'Range Not Satisfiable');
    // The file itself is still served, with its own validators; the page has the page's.
    const file = await visitor.get(`${created.location!}/attachment`);
    assert.equal(file.text, '0123456789');
    assert.notEqual(answer.headers.get('etag'), file.headers.get('etag'));
  });

  it('answers an attachment whose file is gone with a 404 that names no place on the disk', async () => {
    const visitor = await member();
    const before = new Set(attachmentFiles());
    const created = await visitor.upload(
      '/notes/new',
      '/notes',
      { title: 'Lost file', body: '' },
      { name: 'lost.txt', type: 'text/plain', content: 'gone' },
    );
    const [stored] = attachmentFiles().filter((name) => !before.has(name));
    rmSync(join(dataDir, 'attachments', stored));
    const answer = await visitor.get(`${created.location!}/attachment`);
    assert.equal(answer.status, 404);
    assert.equal(messageOf(answer.text), 'There is nothing here.');
    assert.doesNotMatch(answer.text, /ENOENT|attachments|\/tmp\//);
  });
});

describe('showcase: a note deleted while its edit is on its way', () => {
  it('answers the edit with the 404 page and keeps no file of it', async () => {
    const visitor = await member();
    const created = await visitor.upload('/notes/new', '/notes', { title: 'Doomed', body: '' });
    const notePath = created.location!;
    const fields = await visitor.hiddenFields(`${notePath}/edit`);
    const filesBefore = attachmentFiles().length;

    // The edit's head and the first half of its body: the route has loaded the note.
    const form = multipart([...Object.entries(fields), ['title', 'Edited'], ['body', '']]);
    form.append('attachment', new Blob(['new file'], { type: 'text/plain' }), 'new.txt');
    const encoded = new Response(form);
    const bytes = Buffer.from(await encoded.arrayBuffer());
    const edit = request(`${base}${notePath}/edit`, {
      method: 'POST',
      headers: {
        'Content-Type': encoded.headers.get('content-type')!,
        'Content-Length': bytes.length,
        Cookie: visitor.cookieHeader(),
      },
    });
    const answered = once(edit, 'response');
    edit.write(bytes.subarray(0, bytes.length >> 1));

    // Deleted in another tab, then the rest of the edit arrives.
    const deleted = await visitor.submit(`${notePath}/delete`, `${notePath}/delete`, {});
    assert.equal(deleted.location, '/notes');
    edit.end(bytes.subarray(bytes.length >> 1));
    const [res] = (await answered) as [IncomingMessage];
    let text = '';
    for await (const chunk of res) text += chunk;
    assert.equal(res.statusCode, 404, text.slice(0, 300));
    assert.equal(messageOf(text), 'Note not found.');
    assert.equal(attachmentFiles().length, filesBefore, 'the uploaded file is removed with the edit');
  });
});

describe('showcase: the JSON API and caches', () => {
  it('sends no-store with every answer, errors included', async () => {
    const visitor = await member();
    const answers = [
      await visitor.api('GET', '/api/notes'),
      await visitor.api('POST', '/api/notes', { title: 'Cached?' }),
      await visitor.api('GET', '/api/notes/999999'),
      await new Visitor(base).api('GET', '/api/notes'),
    ];
    assert.deepEqual(
      answers.map((answer) => [answer.status, answer.headers.get('cache-control')]),
      [200, 201, 404, 401].map((status) => [status, 'no-store']),
    );
  });
});
