'use strict';
// An Express 3 application, unchanged but for the require line.
var express = require('webapp/v3'); // was: require('express')

var app = express();

app.configure(function () {
  app.set('title', 'Legacy 3.x app');
});

app.configure('development', function () {
  app.set('json spaces', 2);
});

app.locals({ company: 'Example Corp' });

// The classic 3.x stack from the bundled middleware, then the router where 3.x
// apps put it, then a fallback. The body parsers are json() and urlencoded(), what
// bodyParser() bundles but multipart: no route takes uploads, and bodyParser() would
// write any upload sent to any path to a temporary file that nothing deletes.
app.use(express.json());
app.use(express.urlencoded());
app.use(express.methodOverride());
app.use(express.cookieParser());
app.use(express.session({ secret: 'keyboard cat' }));
app.use(express.csrf());
app.use(function (req, res, next) {
  res.locals.requestedAt = new Date().toISOString();
  next();
});
app.use(app.router);
app.use(function (req, res) {
  // Plain text: the path is the client's, and in an HTML page it could hold markup.
  res.type('text').send(404, 'Nothing at ' + req.path);
});

app.param('id', function (req, res, next, id) {
  if (!/^\d+$/.test(id)) return next('route');
  req.itemId = Number(id);
  next();
});

app.get('/', function (req, res) {
  res.send('<h1>' + app.get('title') + '</h1><p>' + app.locals.company + '</p>');
});

app.get('/items/:id', function (req, res) {
  res.json(200, {
    id: req.itemId,
    accepted: req.accepted.map(function (a) {
      return a.value;
    }),
  });
});

app.get('/items/*', function (req, res) {
  res.send(400, 'item ids are numbers');
});

app.get('/old', function (req, res) {
  res.redirect('items/1'); // relative to where the app is mounted, as in 3.x
});

// A form protected by csrf: GET gives the token, POST must send it back.
app.get('/notes', function (req, res) {
  req.session.notes = req.session.notes || [];
  res.send(
    '<form method="post"><input type="hidden" name="_csrf" value="' +
      req.csrfToken() +
      '">' +
      '<input name="note"></form><ul>' +
      req.session.notes
        .map(function (n) {
          return '<li>' + n + '</li>';
        })
        .join('') +
      '</ul>',
  );
});

// The notes a session keeps: the last ten.
var notesKept = 10;

app.post('/notes', function (req, res) {
  // One text field: repeated or bracketed (`note[a]=1`, `note[toString]=x`) it is no string.
  if (typeof req.body.note !== 'string') return res.send(400, 'a note is one text field');
  var note = req.body.note.replace(/[<>&]/g, '');
  req.session.notes = (req.session.notes || []).concat(note).slice(-notesKept);
  res.redirect('notes');
});

app.get('/status', function (req, res) {
  res.send(204);
});

// PORT=0 asks the system for a free port (the tests start it so).
var port = process.env.PORT ? Number(process.env.PORT) : 3001;
// Loopback only, as the showcase: an example is not meant to be reachable from the network.
var host = process.env.HOST || '127.0.0.1';
var server = app.listen(port, host, function () {
  console.log('legacy 3.x app on http://localhost:' + server.address().port);
});
