/**
 * curl, spawned for real with the options users type, against the same app on
 * express@4 and on webapp: the whole transcript (status lines, headers but Date
 * and X-Powered-By, bodies, and after each transfer whether curl could reuse the
 * connection) must be the same, and so must what the server saw.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { comparableTranscript, createFiles, curl, hasCurl, onBoth, type Files, type Side } from './support';

let files: Files;
before(() => {
  files = createFiles();
});
after(() => files.cleanup());

/** The transcript of `curl args` (URLs written with `{base}`) and the server's log, on both frameworks. */
async function curlOnBoth(args: string[], stdin?: Buffer) {
  return onBoth(files, async (side: Side) => {
    const base = `http://127.0.0.1:${side.port}`;
    const run = await curl(
      args.map((arg) => arg.split('{base}').join(base)),
      stdin,
    );
    return { code: run.code, transcript: comparableTranscript(run.stdout, side.port), log: side.log.entries };
  });
}

async function assertSameWithCurl(args: string[], stdin?: Buffer) {
  const { express, webapp } = await curlOnBoth(args, stdin);
  assert.equal(webapp.transcript, express.transcript);
  assert.deepEqual(webapp.log, express.log);
  assert.equal(webapp.code, express.code);
  return webapp;
}

describe('curl against express@4 and webapp', { skip: !hasCurl && 'no /usr/bin/curl' }, () => {
  const answers = [
    '/json',
    '/send',
    '/error',
    '/teapot',
    '/nothing',
    '/redirect',
    '/static/small.txt',
    '/static',
    '/file/small.txt',
    '/file/nothing.txt',
    '/download/small.txt',
    '/download-nocb/nothing.txt',
  ];

  it('answers and error pages on one kept-alive connection, HTTP/1.1', async () => {
    const run = await assertSameWithCurl(answers.map((path) => '{base}' + path));
    // Every error answer left the connection reusable: curl opened one connection.
    assert.equal(run.transcript.match(/new-connections=1/g)?.length, 1, run.transcript);
  });

  it('--http1.0, with and without Connection: keep-alive', async () => {
    await assertSameWithCurl(['--http1.0', ...answers.map((path) => '{base}' + path)]);
    await assertSameWithCurl(['--http1.0', '-H', 'Connection: keep-alive', ...answers.map((path) => '{base}' + path)]);
  });

  it('-H "Connection: close" and -I (HEAD)', async () => {
    await assertSameWithCurl(['-H', 'Connection: close', '{base}/json', '{base}/static/small.txt', '{base}/error']);
    await assertSameWithCurl(['-I', ...answers.map((path) => '{base}' + path)]);
  });

  it('-H "Expect: 100-continue" with a 4 KB body: parsed, 413 by its length, the connection reused', async () => {
    const upload = '@' + join(files.root, 'upload.json');
    const json = ['-H', 'Expect: 100-continue', '-H', 'Content-Type: application/json', '--data-binary', upload];
    const run = await assertSameWithCurl([
      ...json,
      '{base}/json-large',
      '--next',
      ...json,
      '{base}/json',
      '--next',
      '{base}/json',
    ]);
    assert.match(run.transcript, /HTTP\/1.1 100 Continue/);
    assert.match(run.transcript, /\[413 new-connections=0\]/);
  });

  it('--data-binary: a body that fails to parse (400), a 404 with a body, then the next request', async () => {
    await assertSameWithCurl([
      '-H',
      'Content-Type: application/json',
      '--data-binary',
      '{bad',
      '{base}/json',
      '--next',
      '--data-binary',
      '@' + join(files.root, 'upload.json'),
      '{base}/nothing',
      '--next',
      '-H',
      'Content-Type: application/x-www-form-urlencoded',
      '--data-binary',
      'a[b]=1&a[c]=2',
      '{base}/form',
      '--next',
      '{base}/json',
    ]);
  });

  it('-T uploads (chunked, and from stdin), within and over the limit', async () => {
    const upload = join(files.root, 'upload.json');
    await assertSameWithCurl([
      '-T',
      upload,
      '-H',
      'Transfer-Encoding: chunked',
      '-H',
      'Content-Type: application/octet-stream',
      '{base}/raw',
      '--next',
      '-T',
      upload,
      '-X',
      'POST',
      '-H',
      'Content-Type: application/json',
      '-H',
      'Transfer-Encoding: chunked',
      '{base}/json',
      '--next',
      '{base}/json',
    ]);
    await assertSameWithCurl(
      ['-T', '-', '-X', 'POST', '-H', 'Content-Type: application/json', '{base}/json', '--next', '{base}/json'],
      Buffer.from(JSON.stringify({ text: 'stdin'.repeat(1000) })),
    );
  });

  it('--compressed; -r ranges (one, open, suffix, unsatisfiable, several) on static, sendFile, download', async () => {
    await assertSameWithCurl(['--compressed', '{base}/static/small.txt', '{base}/json', '{base}/file/page.html']);
    const ranges = ['0-4', '5-', '-3', '100-200', '0-1,3-4'];
    const args: string[] = [];
    for (const path of ['/static/small.txt', '/file/small.txt', '/download/small.txt', '/static/large.bin']) {
      for (const range of ranges) args.push('--next', '-r', range, '{base}' + path);
    }
    await assertSameWithCurl(args.slice(1));
  });

  it('--max-time gives up on a slow handler: same events, and the server keeps serving', async () => {
    const { express, webapp } = await onBoth(files, async (side) => {
      const base = `http://127.0.0.1:${side.port}`;
      const gaveUp = await curl(['--max-time', '0.3', base + '/slow']);
      await side.log.seen('req close @ GET /slow');
      side.gate.open();
      await side.log.seen('slow answers');
      const next = await curl([base + '/json']);
      return { code: gaveUp.code, log: side.log.entries, next: comparableTranscript(next.stdout, side.port) };
    });
    assert.equal(express.code, 28); // curl's "Operation timed out"
    assert.deepEqual(webapp, express);
  });

  it('--limit-rate uploads: a slow one completes; one cut by --max-time is a 400 request.aborted', async () => {
    const body = join(files.root, 'medium.bin');
    await assertSameWithCurl([
      '--limit-rate',
      '200K',
      '-H',
      'Content-Type: application/octet-stream',
      '--data-binary',
      '@' + body,
      '{base}/raw',
    ]);
    const { express, webapp } = await onBoth(files, async (side) => {
      const base = `http://127.0.0.1:${side.port}`;
      const cut = await curl([
        '--limit-rate',
        '20K',
        '--max-time',
        '0.5',
        '-H',
        'Content-Type: application/octet-stream',
        '--data-binary',
        '@' + body,
        base + '/raw',
      ]);
      await side.log.seen('req close @ POST /raw');
      await side.log.seen('error');
      return { code: cut.code, log: side.log.entries };
    });
    assert.deepEqual(webapp, express);
    assert.ok(
      webapp.log.some((entry) => entry.startsWith('error 400 request.aborted')),
      webapp.log.join('\n'),
    );
  });
});
