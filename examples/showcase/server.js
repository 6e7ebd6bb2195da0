'use strict';
// The showcase: an ordinary Express 4 application. Only the require line differs.
const path = require('node:path');
const webapp = require('webapp'); // was: require('express')

const app = webapp();
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

// A router mounted on /api, with a param loader.
const api = webapp.Router();
api.param('id', (req, res, next, id) => {
  const user = users.get(id);
  if (!user) return next(Object.assign(new Error(`no user ${id}`), { status: 404 }));
  req.user = user;
  next();
});
api.get('/users', (req, res) => {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify([...users.values()]));
});
api.get('/users/:id', (req, res) => {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify(req.user));
});
app.use('/api', api);

// Beyond Express 4: a rejected promise reaches the error handler.
app.get('/boom', async () => {
  throw Object.assign(new Error('async handlers are safe'), { status: 500 });
});

// Error handler: four parameters.
app.use((err, req, res, next) => {
  res.statusCode = err.status || 500;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(JSON.stringify({ error: err.message }));
});

const port = Number(process.env.PORT) || 3000;
const server = app.listen(port, () => console.log(`webapp showcase on http://localhost:${server.address().port}`));
