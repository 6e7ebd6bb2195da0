'use strict';
// The showcase: an ordinary Express 4 application. Only the require line differs.
const path = require('node:path');
const webapp = require('webapp'); // was: require('express')

const app = webapp();
app.set('views', path.join(__dirname, 'views'));
app.set('view engine', 'ejs');
app.locals.title = 'webapp showcase';
const users = new Map([
  ['1', { id: '1', name: 'Ada' }],
  ['2', { id: '2', name: 'Grace' }],
]);

// Request logging, as a plain middleware function.
app.use((req, res, next) => {
  const started = process.hrtime.bigint();
  res.on('finish', () => {
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    console.log(`${req.method} ${req.originalUrl} ${res.statusCode} ${ms.toFixed(1)}ms`);
  });
  next();
});

app.use(webapp.static(path.join(__dirname, 'public')));
app.use(webapp.json());

/** The visit counter cookie, read by hand (any cookie-parsing middleware would do). */
function visitsFrom(req) {
  const match = /(?:^|;\s*)visits=(\d+)/.exec(req.get('Cookie') || '');
  return match ? Number(match[1]) : 0;
}

// Rendering, cookies and content negotiation: HTML for browsers, JSON or text for others.
app.get('/hello/:name', (req, res) => {
  const visits = visitsFrom(req) + 1;
  res.cookie('visits', String(visits), { httpOnly: true, sameSite: 'lax', maxAge: 24 * 3600 * 1000 });
  res.format({
    html: () => res.render('greeting', { name: req.params.name, visits }),
    json: () => res.json({ hello: req.params.name, visits }),
    text: () => res.send(`Hello, ${req.params.name}! (visit ${visits})`),
  });
});

// A JSON body through webapp.json().
app.post('/api/echo', (req, res) => res.status(201).json({ received: req.body }));

// A router mounted on /api, with a param loader.
const api = webapp.Router();
api.param('id', (req, res, next, id) => {
  const user = users.get(id);
  if (!user) return next(Object.assign(new Error(`no user ${id}`), { status: 404 }));
  req.user = user;
  next();
});
api.get('/users', (req, res) => res.json([...users.values()]));
api.get('/users/:id', (req, res) => res.json(req.user));
app.use('/api', api);

// Beyond Express 4: a rejected promise reaches the error handler.
app.get('/boom', async () => {
  throw Object.assign(new Error('async handlers are safe'), { status: 500 });
});

// Error handler: four parameters.
app.use((err, req, res, next) => {
  res.status(err.status || 500).json({ error: err.message });
});

const port = Number(process.env.PORT) || 3000;
const server = app.listen(port, () => console.log(`webapp showcase on http://localhost:${server.address().port}`));
