/**
 * The small HTML pages file serving answers with (redirects to a directory's
 * slash URL), sent with headers that stop browsers from sniffing or running them.
 */
import { Buffer } from 'node:buffer';
import type { ServerResponse } from 'node:http';
import { escapeHtml } from '../http/escape-html';

function htmlDocument(title: string, body: string): string {
  return (
    '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    '<title>' +
    title +
    '</title>\n</head>\n<body>\n<pre>' +
    body +
    '</pre>\n</body>\n</html>\n'
  );
}

function sendHtml(res: ServerResponse, status: number, doc: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=UTF-8');
  res.setHeader('Content-Length', Buffer.byteLength(doc));
  res.setHeader('Content-Security-Policy', "default-src 'none'");
  res.setHeader('X-Content-Type-Options', 'nosniff');
}

/** 301 to `location` (already URL-encoded), with an escaped HTML body naming it. */
export function sendRedirect(res: ServerResponse, location: string): void {
  const doc = htmlDocument('Redirecting', 'Redirecting to ' + escapeHtml(location));
  sendHtml(res, 301, doc);
  res.setHeader('Location', location);
  res.end(doc);
}
