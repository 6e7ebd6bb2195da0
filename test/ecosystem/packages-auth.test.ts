/**
 * Authentication packages from npm, unmodified, on webapp: OAuth 2 login with
 * passport (passport-oauth2, passport-google-oauth20, passport-github2), grant,
 * keycloak-connect, Auth.js (@auth/express) and Feathers (@feathersjs/express).
 * The identity providers are a plain node:http server of the test's own on
 * 127.0.0.1. A scripted client that keeps cookies runs each flow against the app
 * built on express@4 and on webapp; what it saw, with the random values (states,
 * session ids, tokens) replaced by placeholders, must match.
 */
import assert from 'node:assert/strict';
import { createPublicKey, createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import {
  assertSameFlow,
  assertSameResponses,
  frameworks,
  rawRequest,
  type Framework,
  type RawResponse,
  type RequestSpec,
} from '../support/differential';
import { loadWithExpressAs } from '../support/express-alias';

type Any = any;

/** The app's origin as the browser and the providers know it: every request to the app carries its Host. */
const APP = 'http://app.example';

/**
 * Random values seen in a flow (states, session ids, tokens), each replaced by
 * `<name-n>`, n counting the distinct values of that name in the order they came:
 * two flows that draw different values at the same steps read the same.
 */
class Placeholders {
  private readonly names = new Map<string, string>();
  private readonly counts = new Map<string, number>();

  add(name: string, value: string | null | undefined): void {
    if (!value || this.names.has(value)) return;
    const n = (this.counts.get(name) ?? 0) + 1;
    this.counts.set(name, n);
    this.names.set(value, `<${name}-${n}>`);
  }

  apply<T>(value: T): T {
    let text = JSON.stringify(value);
    // The longest first, so a value that holds another is replaced whole.
    const values = [...this.names.keys()].sort((a, b) => b.length - a.length);
    for (const secret of values) text = text.split(JSON.stringify(secret).slice(1, -1)).join(this.names.get(secret)!);
    return JSON.parse(text);
  }
}

/** Status, headers but the clock's and the brand's, and body. */
function seenOf(res: RawResponse): Record<string, unknown> {
  const headers: Record<string, unknown> = { ...res.headers };
  delete headers.date;
  delete headers['x-powered-by'];
  return { status: res.status, headers, body: res.body };
}

/** What a flow draws at random: cookies and redirects' query parameters, and whether times come from the clock. */
interface Random {
  cookies?: string[];
  params?: string[];
  /** ISO dates and cookies' Expires (but the epoch of a cleared cookie) read `<clock>`. */
  clock?: boolean;
}

/**
 * A browser for one flow: it keeps the app's cookies, sends every request to the
 * app with `Host: app.example`, follows redirects to the provider and back, and
 * records what it saw. The values of the cookies and of the redirects' query
 * parameters it is told are random get placeholders.
 */
class Browser {
  readonly jar = new Map<string, string>();
  readonly placeholders = new Placeholders();
  readonly steps: unknown[] = [];
  /** The answers the browser followed (the others end a walk). */
  private readonly followed = new Set<number>();
  private readonly answers: RawResponse[] = [];

  constructor(
    readonly port: number,
    readonly random: Random = {},
  ) {}

  async send(spec: RequestSpec): Promise<RawResponse> {
    const cookie = [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const headers = { Host: 'app.example', ...(cookie ? { Cookie: cookie } : {}), ...spec.headers };
    const res = await rawRequest(this.port, { ...spec, headers });
    for (const line of (res.headers['set-cookie'] as string[] | undefined) ?? []) {
      const pair = line.split(';')[0]!;
      const name = pair.slice(0, pair.indexOf('='));
      const value = pair.slice(pair.indexOf('=') + 1);
      if (this.random.cookies?.includes(name)) {
        this.placeholders.add(name, value);
        // A signed session cookie (s:<id>.<signature>): its id may show elsewhere (a provider's request).
        this.placeholders.add(`${name}-id`, /^s:(.+)\.[^.]+$/.exec(decodeURIComponent(value))?.[1]);
      }
      const expires = /Expires=([^;]+)/i.exec(line)?.[1];
      if (value === '' || (expires && Date.parse(expires) < Date.now())) this.jar.delete(name);
      else this.jar.set(name, value);
    }
    return this.record(res);
  }

  /** Keeps what `res` shows (the random values of its Location noted). */
  record(res: RawResponse): RawResponse {
    if (res.headers.location) {
      const url = new URL(String(res.headers.location), APP);
      for (const param of this.random.params ?? []) this.placeholders.add(param, url.searchParams.get(param));
    }
    this.steps.push(seenOf(res));
    this.answers.push(res);
    return res;
  }

  get(path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
    return this.send({ path, headers });
  }

  post(path: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<RawResponse> {
    const body = new URLSearchParams(form).toString();
    return this.send({
      method: 'POST',
      path,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });
  }

  /**
   * Follows `res`'s Location once: to the provider (who signs in as `user`), or to
   * the app; `tamper` changes the Location first (a forged callback).
   */
  async follow(res: RawResponse, user = 'ada', tamper = (location: string) => location): Promise<RawResponse> {
    this.followed.add(this.answers.lastIndexOf(res));
    const location = tamper(String(res.headers.location));
    if (location.startsWith(provider.origin)) {
      const url = new URL(location);
      url.searchParams.set('user', user);
      return this.record(await rawRequest(provider.port, { path: url.pathname + url.search }));
    }
    return this.get(location.startsWith(APP) ? location.slice(APP.length) || '/' : location);
  }

  /** Follows redirects from `res` to the first answer that is not one (at most 6). */
  async walk(res: RawResponse, user = 'ada'): Promise<RawResponse> {
    for (let hops = 0; hops < 6 && res.status >= 300 && res.status < 400 && res.headers.location; hops++) {
      res = await this.follow(res, user);
    }
    return res;
  }

  /** The steps that were not followed: where each walk ended. */
  ends(steps: Any[]): Any[] {
    return steps.filter((step, i) => !this.followed.has(i));
  }

  /** What the browser saw, the random values replaced; the ETag of a body that held one is a placeholder too. */
  seen(): Any[] {
    let steps = this.placeholders.apply(this.steps);
    if (this.random.clock) {
      const text = JSON.stringify(steps)
        .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<clock>')
        .replace(/Expires=(?!Thu, 01 Jan 1970)[^;"]+/g, 'Expires=<clock>');
      steps = JSON.parse(text);
    }
    return steps.map((step: Any) =>
      /<[\w.-]+-\d+>/.test(step.body) && step.headers.etag
        ? { ...step, headers: { ...step.headers, etag: '<etag>' } }
        : step,
    );
  }
}

/**
 * Answers as [status, body]: JSON parsed, an HTML page as its <pre> or `html`, a
 * redirect as where it goes (the provider's origin read `provider`, no query).
 */
function answered(steps: Any[]): Array<[number, Any]> {
  return steps.map((step): [number, Any] => {
    if (step.headers.location)
      return [step.status, String(step.headers.location).replace(provider.origin, 'provider').split('?')[0]];
    if (/json/.test(step.headers['content-type'] ?? '')) return [step.status, JSON.parse(step.body)];
    if (/^<!DOCTYPE html>/i.test(step.body)) return [step.status, /<pre>(.*)<\/pre>/.exec(step.body)?.[1] ?? 'html'];
    return [step.status, step.body];
  });
}

interface Provider {
  origin: string;
  port: number;
  /** The requests the apps sent to the provider since the last reset (the token exchange, the profile). */
  requests: unknown[];
  /** The signed tokens the fake Keycloak issued since the last reset (their times come from the clock). */
  jwts: string[];
  reset(): void;
  close(): Promise<void>;
}

/** The users the provider knows, in each API's shape. */
const USERS: Record<string, Record<string, unknown>> = {
  ada: {
    sub: 'u-1',
    id: 1,
    login: 'ada',
    name: 'Ada Lovelace',
    given_name: 'Ada',
    family_name: 'Lovelace',
    email: 'ada@example.com',
    email_verified: true,
    picture: 'https://img.example/ada.png',
    avatar_url: 'https://img.example/ada.png',
    html_url: 'https://people.example/ada',
  },
  alan: { sub: 'u-2', id: 2, login: 'alan', name: 'Alan Turing', email: 'alan@example.com' },
};

/**
 * The identity provider: `/authorize` sends the browser back to redirect_uri with
 * a code (or with `error=access_denied` for the user `deny`), `/token` trades a
 * code for an access token, and the profile endpoints answer that token. Codes and
 * tokens count from 1 after each reset, so both apps' flows get the same ones.
 * `/realms/demo/...` is a fake Keycloak whose tokens `realm` signs.
 */
async function startProvider(realm: { key: KeyObject }): Promise<Provider> {
  let issued = 0;
  const codes = new Map<string, { user: string; redirectUri: string; clientId: string }>();
  const tokens = new Map<string, string>();
  const requests: unknown[] = [];
  const jwts: string[] = [];
  const jwk = { ...createPublicKey(realm.key).export({ format: 'jwk' }), kid: 'realm-key', alg: 'RS256', use: 'sig' };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://provider');
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const send = (status: number, value: unknown) => {
        res.writeHead(status, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify(value));
      };
      if (url.pathname === '/authorize' || url.pathname === '/realms/demo/protocol/openid-connect/auth') {
        const back = new URL(url.searchParams.get('redirect_uri')!);
        const user = url.searchParams.get('user') ?? 'ada';
        const state = url.searchParams.get('state');
        if (state) back.searchParams.set('state', state);
        if (user === 'deny') {
          back.searchParams.set('error', 'access_denied');
          back.searchParams.set('error_description', 'The user said no');
        } else {
          const code = `code-${++issued}`;
          codes.set(code, {
            user,
            redirectUri: url.searchParams.get('redirect_uri')!,
            clientId: url.searchParams.get('client_id')!,
          });
          back.searchParams.set('code', code);
        }
        res.writeHead(302, { Location: back.href }).end();
        return;
      }
      const { host, 'content-length': length, connection, ...headers } = req.headers;
      void [host, length, connection];
      requests.push({ method: req.method, path: req.url, headers, body });
      if (url.pathname === '/token' || url.pathname === '/realms/demo/protocol/openid-connect/token') {
        const form = new URLSearchParams(body);
        const grant = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        if (!grant || grant.redirectUri !== form.get('redirect_uri')) {
          return send(400, { error: 'invalid_grant', error_description: 'Code is unknown or spent' });
        }
        const token = `token-${++issued}`;
        tokens.set(token, grant.user);
        if (url.pathname === '/token') {
          return send(200, { access_token: token, token_type: 'bearer', refresh_token: `refresh-${issued}` });
        }
        const answer = keycloakTokens(realm.key, grant.user, grant.clientId, `${origin}/realms/demo`);
        jwts.push(answer.access_token, answer.id_token, answer.refresh_token);
        return send(200, answer);
      }
      if (url.pathname === '/realms/demo/protocol/openid-connect/certs') return send(200, { keys: [jwk] });
      const token =
        (req.headers.authorization ?? '').replace(/^(Bearer|token) /i, '') || url.searchParams.get('access_token');
      const user = USERS[tokens.get(token ?? '') ?? ''];
      if (!user) return send(401, { error: 'invalid_token', error_description: 'Who are you?' });
      if (url.pathname === '/user/emails') {
        return send(200, [
          { email: 'old@example.com', primary: false, verified: true },
          { email: user.email, primary: true, verified: true },
        ]);
      }
      if (['/userinfo', '/user', '/profile'].includes(url.pathname)) return send(200, user);
      send(404, { error: 'not_found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as Any).port as number;
  const origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    requests,
    jwts,
    reset: () => {
      issued = 0;
      jwts.length = 0;
      codes.clear();
      tokens.clear();
      requests.length = 0;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A JWT signed with RS256 by `key`. */
function signJwt(key: KeyObject, claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signed = `${part({ alg: 'RS256', typ: 'JWT', kid: 'realm-key' })}.${part(claims)}`;
  return `${signed}.${createSign('RSA-SHA256').update(signed).sign(key, 'base64url')}`;
}

/** What Keycloak's token endpoint answers: an access token, an ID token and a refresh token, all signed. */
function keycloakTokens(key: KeyObject, user: string, clientId: string, issuer: string): Record<string, string> {
  const now = Math.floor(Date.now() / 1000);
  const common = { iss: issuer, sub: USERS[user]!.sub, iat: now, exp: now + 300, azp: clientId };
  const roles = user === 'ada' ? ['reader', 'editor'] : ['reader'];
  return {
    access_token: signJwt(key, {
      ...common,
      typ: 'Bearer',
      aud: 'account',
      preferred_username: user,
      realm_access: { roles: ['user'] },
      resource_access: { [clientId]: { roles } },
    }),
    id_token: signJwt(key, { ...common, typ: 'ID', aud: clientId, name: USERS[user]!.name }),
    refresh_token: signJwt(key, { ...common, typ: 'Refresh', aud: issuer, exp: now + 1800 }),
    token_type: 'Bearer',
  };
}

const realm = generateKeyPairSync('rsa', { modulusLength: 2048 });
let provider: Provider;
before(async () => {
  provider = await startProvider({ key: realm.privateKey });
});
after(() => provider.close());

/**
 * Runs `flow` with a browser of its own on the app built on express@4 and on
 * webapp, the provider reset before each; returns what webapp's browser saw and
 * the requests the app sent to the provider, the random values replaced.
 */
function sameFlow(
  define: (fw: Framework) => http.RequestListener,
  random: Random,
  flow: (browser: Browser) => Promise<void>,
): Promise<{ steps: Any[]; ends: Any[]; provider: Any[] }> {
  return assertSameFlow(define, async (port) => {
    provider.reset();
    const browser = new Browser(port, random);
    await flow(browser);
    for (const jwt of provider.jwts) browser.placeholders.add('jwt', jwt);
    const steps = browser.seen();
    return { steps, ends: browser.ends(steps), provider: browser.placeholders.apply(provider.requests) };
  });
}

describe('authentication packages from npm on webapp (differential against express@4)', () => {
  it('passport-oauth2, -google-oauth20, -github2: state in the session, code, token, profile, login', async () => {
    const { Passport } = require('passport');
    const OAuth2Strategy = require('passport-oauth2');
    const GoogleStrategy = require('passport-google-oauth20').Strategy;
    const GitHubStrategy = require('passport-github2').Strategy;
    const session = require('express-session');
    const flash = require('connect-flash');
    const define = (fw: Framework): http.RequestListener => {
      const passport = new Passport();
      const verify = (accessToken: string, refreshToken: string, params: Any, profile: Any, done: Any) => {
        if (profile.username === 'alan' || profile.id === 'u-2') return done(null, false, { message: 'Not invited' });
        done(null, { id: profile.id, provider: profile.provider, name: profile.displayName, accessToken, params });
      };
      const generic = new OAuth2Strategy(
        {
          authorizationURL: provider.origin + '/authorize',
          tokenURL: provider.origin + '/token',
          clientID: 'generic-client',
          clientSecret: 'generic-secret',
          callbackURL: '/auth/oauth2/callback',
          scope: ['read', 'write'],
          state: true,
        },
        verify,
      );
      // The generic strategy has no profile of its own: the usual override reads one.
      generic.userProfile = function (this: Any, token: string, done: Any) {
        this._oauth2.get(provider.origin + '/profile', token, (err: Any, body: string) =>
          err ? done(err) : done(null, { ...JSON.parse(body), provider: 'oauth2', id: JSON.parse(body).sub }),
        );
      };
      passport.use(generic);
      passport.use(
        new GoogleStrategy(
          {
            clientID: 'google-client',
            clientSecret: 'google-secret',
            callbackURL: '/auth/google/callback',
            authorizationURL: provider.origin + '/authorize',
            tokenURL: provider.origin + '/token',
            userProfileURL: provider.origin + '/userinfo',
            state: true,
          },
          verify,
        ),
      );
      passport.use(
        new GitHubStrategy(
          {
            clientID: 'github-client',
            clientSecret: 'github-secret',
            callbackURL: `${APP}/auth/github/callback`,
            authorizationURL: provider.origin + '/authorize',
            tokenURL: provider.origin + '/token',
            userProfileURL: provider.origin + '/user',
            userEmailURL: provider.origin + '/user/emails',
            scope: ['user:email'],
            state: true,
          },
          verify,
        ),
      );
      passport.serializeUser((user: Any, done: Any) => done(null, user));
      passport.deserializeUser((user: Any, done: Any) => done(null, user));
      const app: Any = fw();
      app.use(session({ secret: 'keyboard cat', resave: false, saveUninitialized: false, name: 'sid' }));
      app.use(flash());
      app.use(passport.initialize());
      app.use(passport.session());
      app.get('/auth/oauth2', passport.authenticate('oauth2'));
      app.get(
        '/auth/oauth2/callback',
        passport.authenticate('oauth2', {
          failureRedirect: '/login',
          failureFlash: true,
          // The flash and returnTo survive the new session a login draws.
          keepSessionInfo: true,
          successFlash: 'Welcome back',
          successReturnToOrRedirect: '/me',
        }),
      );
      app.get(
        '/auth/google',
        passport.authenticate('google', { scope: ['profile', 'email'], accessType: 'offline', prompt: 'consent' }),
      );
      app.get(
        '/auth/google/callback',
        passport.authenticate('google', { failureRedirect: '/login', failureMessage: true }),
        (req: Any, res: Any) => res.redirect('/me'),
      );
      app.get('/auth/github', passport.authenticate('github'));
      // No failureRedirect: a failure answers 401 (or the strategy's status) itself.
      app.get('/auth/github/callback', passport.authenticate('github', { successRedirect: '/me' }));
      app.get('/login', (req: Any, res: Any) =>
        res.json({ flash: req.flash('error'), messages: req.session.messages ?? [] }),
      );
      app.get('/me', (req: Any, res: Any) => {
        if (!req.isAuthenticated()) return res.status(401).json({ error: 'login first' });
        res.json({ user: req.user, flash: req.flash('success') });
      });
      app.post('/logout', (req: Any, res: Any, next: Any) =>
        req.logout((err: Any) => (err ? next(err) : res.redirect('/'))),
      );
      app.use((err: Any, req: Any, res: Any, _next: Any) =>
        res.status(err.status ?? 500).json({ name: err.name, message: err.message, code: err.code ?? null }),
      );
      return app;
    };
    const seen = await sameFlow(define, { cookies: ['sid'], params: ['state'] }, async (browser) => {
      // The generic strategy: login, the provider, the callback, the protected page, logout.
      await browser.walk(await browser.get('/auth/oauth2'));
      await browser.get('/me');
      await browser.walk(await browser.post('/logout', {}));
      await browser.get('/me');
      // A user the app refuses: failureFlash with the verify callback's message.
      await browser.walk(await browser.get('/auth/oauth2'), 'alan');
      // Another provider error than access_denied goes to the error handler.
      await browser.get('/auth/oauth2/callback?error=server_error&error_description=Down');
      // Google: the provider's access_denied, then a forged state (to failureRedirect with failureMessage), a login.
      await browser.walk(await browser.get('/auth/google'), 'deny');
      const granted = await browser.follow(await browser.get('/auth/google'));
      await browser.walk(await browser.follow(granted, 'ada', (to) => to.replace(/state=\w+/, 'state=forged')));
      await browser.walk(await browser.get('/auth/google'));
      // GitHub, without failureRedirect: no state in the session, a user the app refuses, a login.
      await browser.get('/auth/github/callback?code=code-x&state=none');
      await browser.walk(await browser.get('/auth/github'), 'alan');
      const github = await browser.follow(await browser.get('/auth/github'));
      await browser.walk(await browser.follow(github));
      await browser.get('/me');
      // The same code again, with a good state: the provider refuses it (a TokenError to the error handler).
      const again = new URL(String((await browser.get('/auth/github')).headers.location));
      const code = new URL(String(github.headers.location)).searchParams.get('code');
      await browser.get(`/auth/github/callback?code=${code}&state=${again.searchParams.get('state')}`);
    });
    const user = (provider: string, token: string, name?: string) => ({
      id: provider === 'github' ? '1' : 'u-1',
      provider,
      ...(name ? { name } : {}),
      accessToken: token,
      params: { access_token: token, token_type: 'bearer' },
    });
    assert.deepEqual(answered(seen.ends), [
      [200, { user: user('oauth2', 'token-2'), flash: ['Welcome back'] }],
      [200, { user: user('oauth2', 'token-2'), flash: [] }],
      [404, 'Cannot GET /'],
      [401, { error: 'login first' }],
      [200, { flash: ['Not invited'], messages: [] }],
      [502, { name: 'AuthorizationError', message: 'Down', code: 'server_error' }],
      [200, { flash: [], messages: ['The user said no'] }],
      [200, { flash: [], messages: ['The user said no', 'Invalid authorization request state.'] }],
      [200, { user: user('google', 'token-7', 'Ada Lovelace'), flash: [] }],
      [403, 'Forbidden'],
      [401, 'Unauthorized'],
      [200, { user: user('github', 'token-11', 'Ada Lovelace'), flash: [] }],
      [200, { user: user('github', 'token-11', 'Ada Lovelace'), flash: [] }],
      [302, 'provider/authorize'],
      [500, { name: 'TokenError', message: 'Code is unknown or spent', code: 'invalid_grant' }],
    ]);
    // The code for a token (client credentials in the body), then the profile with that token.
    assert.deepEqual(
      seen.provider.map((request) => `${request.method} ${request.path}`),
      [
        'POST /token',
        'GET /profile?access_token=token-2',
        'POST /token',
        'GET /profile?access_token=token-4',
        'POST /token',
        'GET /userinfo?access_token=token-7',
        'POST /token',
        'GET /user',
        'GET /user/emails',
        'POST /token',
        'GET /user',
        'GET /user/emails',
        'POST /token',
      ],
    );
    assert.match(seen.provider[0].body, /^grant_type=authorization_code&redirect_uri=http%3A%2F%2Fapp\.example%2F/);
  });

  it('grant: the redirect to the provider, the callback, the token exchange, req.session.grant', async () => {
    const grant = require('grant');
    const session = require('express-session');
    const define = (fw: Framework): http.RequestListener => {
      const app: Any = fw();
      app.use(session({ secret: 'grant secret', resave: false, saveUninitialized: true, name: 'sid' }));
      app.use(fw.urlencoded({ extended: true }));
      app.use(
        grant.express()({
          defaults: { origin: APP, transport: 'session', state: true },
          local: {
            authorize_url: provider.origin + '/authorize',
            access_url: provider.origin + '/token',
            profile_url: provider.origin + '/profile',
            oauth: 2,
            key: 'grant-client',
            secret: 'grant-secret',
            scope: ['read', 'profile'],
            custom_params: { audience: 'api' },
            callback: '/done',
            response: ['tokens', 'raw', 'profile'],
            dynamic: ['scope'],
          },
          // A provider grant knows, pointed at the local one; its answer stays in res.locals.
          github: {
            authorize_url: provider.origin + '/authorize',
            access_url: provider.origin + '/token',
            profile_url: provider.origin + '/user',
            key: 'github-client',
            secret: 'github-secret',
            scope: ['user:email'],
            transport: 'state',
            overrides: { repo: { scope: ['repo'] } },
          },
        }),
      );
      app.get('/done', (req: Any, res: Any) => res.json({ query: req.query, grant: req.session.grant }));
      app.get('/connect/github/callback', (req: Any, res: Any) =>
        res.json({ locals: res.locals.grant, session: req.session.grant }),
      );
      app.use((err: Any, req: Any, res: Any, _next: Any) => res.status(500).json({ error: err.message }));
      return app;
    };
    const seen = await sameFlow(define, { cookies: ['sid'], params: ['state'] }, async (browser) => {
      await browser.walk(await browser.get('/connect/local'));
      // Dynamic: the scope from a form.
      await browser.walk(await browser.post('/connect/local', { scope: 'read' }));
      // The user says no; then a state that is not the session's.
      await browser.walk(await browser.get('/connect/local'), 'deny');
      const granted = await browser.follow(await browser.get('/connect/local'));
      await browser.walk(await browser.follow(granted, 'ada', (to) => to.replace(/state=\w+/, 'state=x')));
      // The state transport, with an override; a provider grant does not know.
      await browser.walk(await browser.get('/connect/github/repo'));
      await browser.get('/connect/nowhere');
    });
    const answers = answered(seen.ends);
    assert.equal(seen.steps.at(-1).headers.location, '/?error=Grant%3A%20missing%20or%20misconfigured%20provider');
    const [first, dynamic, denied, mismatch, github] = answers.map(([, body]) => body);
    assert.deepEqual(first.grant.response.raw, {
      access_token: 'token-2',
      token_type: 'bearer',
      refresh_token: 'refresh-2',
    });
    assert.equal(first.grant.response.profile.login, 'ada');
    assert.deepEqual(dynamic.grant.dynamic, { scope: 'read' });
    assert.equal(denied.grant.response.error, 'access_denied');
    assert.equal(mismatch.grant.response.error, 'Grant: OAuth2 state mismatch');
    assert.deepEqual(github.locals.response.access_token, 'token-7');
    assert.deepEqual(github.session, { provider: 'github', override: 'repo', state: '<state-5>' });
  });

  it('keycloak-connect: protect() sends to the realm, a code for signed tokens, roles, admin logout', async () => {
    const session = require('express-session');
    const Keycloak = require('keycloak-connect');
    const define = (fw: Framework): http.RequestListener => {
      const store = new session.MemoryStore();
      // No realm-public-key: the tokens' signatures are checked with the realm's certs endpoint.
      const keycloak = new Keycloak(
        { store },
        {
          realm: 'demo',
          'auth-server-url': provider.origin,
          resource: 'webapp-client',
          credentials: { secret: 'kc-secret' },
        },
      );
      const app: Any = fw();
      app.use(session({ secret: 'kc session', resave: false, saveUninitialized: true, store, name: 'sid' }));
      app.use(keycloak.middleware({ logout: '/logout' }));
      const who = (req: Any, res: Any) => {
        const token = req.kauth.grant.access_token;
        res.json({
          user: token.content.preferred_username,
          name: req.kauth.grant.id_token.content.name,
          editor: token.hasRole('editor'),
          realmUser: token.hasRole('realm:user'),
        });
      };
      app.get('/', (req: Any, res: Any) => res.json({ signedIn: Boolean(req.kauth.grant) }));
      app.get('/protected', keycloak.protect(), who);
      app.get('/editor', keycloak.protect('editor'), who);
      app.get('/admin', keycloak.protect('realm:admin'), who);
      app.get(
        '/reader',
        keycloak.protect((token: Any, req: Any) => token.hasRole('reader') && req.query.ok === '1'),
        who,
      );
      return app;
    };
    const seen = await sameFlow(define, { cookies: ['sid'], params: ['state'] }, async (browser) => {
      await browser.get('/');
      // protect(): to the realm's login, back with a code the adapter trades for tokens, then the page.
      await browser.walk(await browser.get('/protected?tab=1'));
      await browser.get('/');
      await browser.get('/editor');
      await browser.get('/admin');
      await browser.get('/reader?ok=1');
      await browser.get('/reader');
      // The realm logs the session out over the back channel: the next page sends to the login again.
      const sid = /^s:(.+)\.[^.]+$/.exec(decodeURIComponent(browser.jar.get('sid')!))![1]!;
      const now = Math.floor(Date.now() / 1000);
      const logout = signJwt(realm.privateKey, { action: 'LOGOUT', adapterSessionIds: [sid], iat: now, exp: now + 60 });
      await browser.send({
        method: 'POST',
        path: '/k_logout',
        headers: { 'Content-Type': 'text/plain' },
        body: logout,
      });
      await browser.send({ method: 'POST', path: '/k_logout', body: logout.slice(0, -4) + 'AAAA' });
      await browser.get('/protected');
      // alan is not an editor; logout sends to the realm's end-session endpoint with the ID token.
      await browser.walk(await browser.get('/editor'), 'alan');
      await browser.get('/logout');
      await browser.get('/');
      // The user says no at the realm.
      await browser.walk(await browser.get('/protected'), 'deny');
    });
    const who = { user: 'ada', name: 'Ada Lovelace', editor: true, realmUser: true };
    assert.deepEqual(answered(seen.ends), [
      [200, { signedIn: false }],
      [200, who],
      [200, { signedIn: true }],
      [200, who],
      [403, 'Access denied'],
      [200, who],
      [403, 'Access denied'],
      [200, 'ok'],
      [401, 'admin request failed: invalid token (signature)'],
      [302, 'provider/realms/demo/protocol/openid-connect/auth'],
      [403, 'Access denied'],
      [302, 'provider/realms/demo/protocol/openid-connect/logout'],
      [200, { signedIn: false }],
      [403, 'Access denied'],
    ]);
    // Logging out sends the ID token of the second login (each login draws an access, an ID and a refresh token).
    assert.match(
      seen.steps.at(-5).headers.location,
      /\?id_token_hint=<jwt-5>&post_logout_redirect_uri=http%3A%2F%2Fapp\.example%2F$/,
    );
    assert.match(seen.provider[0].body, /^client_session_state=<sid-id-1>&client_session_host=&code=code-1&/);
  });

  it('keycloak-connect bearer-only: tokens the realm public key verifies, 401 and 403 answers', async () => {
    const Keycloak = require('keycloak-connect');
    const issuer = provider.origin + '/realms/demo';
    const now = Math.floor(Date.now() / 1000);
    const claims = (user: string, roles: string[], extra: Record<string, unknown> = {}) => ({
      iss: issuer,
      sub: USERS[user]!.sub,
      typ: 'Bearer',
      aud: 'api-client',
      iat: now,
      exp: now + 600,
      preferred_username: user,
      resource_access: { 'api-client': { roles } },
      ...extra,
    });
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
    const ada = signJwt(realm.privateKey, claims('ada', ['reader', 'editor']));
    const alan = signJwt(realm.privateKey, claims('alan', ['reader']));
    const answers = await assertSameResponses(
      (fw: Framework) => {
        const keycloak = new Keycloak(
          {},
          {
            realm: 'demo',
            'auth-server-url': provider.origin,
            resource: 'api-client',
            'bearer-only': true,
            'verify-token-audience': true,
            'realm-public-key': realm.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'),
          },
        );
        // Without a token (or with one it refuses), 401; a token without the role, 403.
        keycloak.accessDenied = (req: Any, res: Any) =>
          req.kauth?.grant
            ? res.status(403).json({ error: 'forbidden' })
            : res.status(401).set('WWW-Authenticate', 'Bearer realm="demo"').json({ error: 'unauthorized' });
        const app: Any = fw();
        app.use(keycloak.middleware());
        app.get('/api/me', keycloak.protect(), (req: Any, res: Any) =>
          res.json({ user: req.kauth.grant.access_token.content.preferred_username }),
        );
        app.delete('/api/notes/:id', keycloak.protect('editor'), (req: Any, res: Any) => res.sendStatus(204));
        app.get('/public', (req: Any, res: Any) => res.json({ signedIn: Boolean(req.kauth.grant) }));
        return app;
      },
      [
        { path: '/api/me', headers: bearer(ada) },
        { path: '/api/me', headers: { Authorization: `bearer ${alan}` } },
        { method: 'DELETE', path: '/api/notes/1', headers: bearer(ada) },
        { method: 'DELETE', path: '/api/notes/1', headers: bearer(alan) },
        { path: '/public', headers: bearer(ada) },
        { path: '/public' },
        { path: '/api/me' },
        { path: '/api/me', headers: { Authorization: `Basic ${Buffer.from('ada:pw').toString('base64')}` } },
        // Another key's signature, expired, another issuer, another audience, an ID token, not a JWT.
        { path: '/api/me', headers: bearer(signJwt(other, claims('ada', ['editor']))) },
        { path: '/api/me', headers: bearer(signJwt(realm.privateKey, claims('ada', [], { exp: now - 10 }))) },
        { path: '/api/me', headers: bearer(signJwt(realm.privateKey, claims('ada', [], { iss: 'http://evil' }))) },
        { path: '/api/me', headers: bearer(signJwt(realm.privateKey, claims('ada', [], { aud: 'other' }))) },
        { path: '/api/me', headers: bearer(signJwt(realm.privateKey, claims('ada', [], { typ: 'ID' }))) },
        { path: '/api/me', headers: bearer('not-a-jwt') },
      ],
    );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 204, 403, 200, 200, 401, 401, 401, 401, 401, 401, 401, 401],
    );
  });

  it('@auth/express: its pages, CSRF, providers, Credentials sign-in (JWT session), getSession, signout', async () => {
    // ESM only. Imported by a name TypeScript does not follow: @auth/core's types bring the DOM's
    // fetch types, which would change Node's for every test file type-checked with this one.
    const importEsm = (id: string): Promise<Any> => import(id);
    const { ExpressAuth, getSession } = await importEsm('@auth/express');
    const Credentials = (await importEsm('@auth/express/providers/credentials')).default;
    const config = (): Any => ({
      secret: 'an Auth.js secret of at least 32 characters',
      trustHost: true,
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      providers: [
        Credentials({
          credentials: { username: { label: 'Username' }, password: { label: 'Password', type: 'password' } },
          authorize: async (credentials: Any) =>
            credentials.username === 'ada' && credentials.password === 'pw'
              ? { id: 'u-1', name: 'Ada Lovelace', email: 'ada@example.com' }
              : null,
        }),
      ],
    });
    // ExpressAuth parses bodies with its own `import * as e from "express"` (an ES module import, which
    // loadWithExpressAs cannot redirect): express@4's json() and urlencoded() on both apps.
    const define = (fw: Framework): http.RequestListener => {
      const authConfig = config();
      const app: Any = fw();
      app.set('trust proxy', true);
      app.use('/auth/*', ExpressAuth(authConfig));
      app.get('/me', async (req: Any, res: Any, next: Any) => {
        try {
          const session = await getSession(req, authConfig);
          if (!session) return res.status(401).json({ error: 'sign in first' });
          res.json({ user: session.user, expires: typeof session.expires });
        } catch (err) {
          next(err);
        }
      });
      return app;
    };
    const seen = await sameFlow(
      define,
      // Random: the CSRF token and the encrypted session (a random IV); the session's expiry comes from the clock.
      { cookies: ['authjs.csrf-token', 'authjs.session-token', 'authjs.callback-url'], clock: true },
      async (browser) => {
        await browser.get('/auth/signin');
        const csrf = await browser.get('/auth/csrf');
        const csrfToken = JSON.parse(csrf.body).csrfToken;
        browser.placeholders.add('csrfToken', csrfToken);
        await browser.get('/auth/providers');
        await browser.get('/auth/session');
        await browser.get('/me');
        await browser.post('/auth/callback/credentials', { csrfToken, username: 'ada', password: 'wrong' });
        await browser.post('/auth/callback/credentials', { csrfToken: 'forged', username: 'ada', password: 'pw' });
        await browser.post('/auth/callback/credentials', {
          csrfToken,
          username: 'ada',
          password: 'pw',
          callbackUrl: '/me',
        });
        await browser.get('/auth/session');
        await browser.get('/me');
        await browser.get('/auth/signout');
        await browser.post('/auth/signout', { csrfToken });
        await browser.get('/me');
        await browser.get('/auth/nowhere');
      },
    );
    assert.deepEqual(answered(seen.ends).slice(1), [
      [200, { csrfToken: '<csrfToken-1>' }],
      [
        200,
        {
          credentials: {
            id: 'credentials',
            name: 'Credentials',
            type: 'credentials',
            signinUrl: `${APP}/auth/signin/credentials`,
            callbackUrl: `${APP}/auth/callback/credentials`,
          },
        },
      ],
      [200, null],
      [401, { error: 'sign in first' }],
      [302, `${APP}/auth/signin`],
      [302, `${APP}/auth/signin`],
      [302, `${APP}/me`],
      [200, { user: { name: 'Ada Lovelace', email: 'ada@example.com' }, expires: '<clock>' }],
      [200, { user: { name: 'Ada Lovelace', email: 'ada@example.com' }, expires: 'string' }],
      [200, 'html'],
      [302, `${APP}/me`],
      [401, { error: 'sign in first' }],
      [400, 'Bad request.'],
    ]);
    assert.match(seen.steps[0].body, /<input type="hidden" name="csrfToken" value="<csrfToken-1>"\/>/);
    assert.match(
      seen.steps[7].headers['set-cookie'][1],
      /^authjs\.session-token=<authjs\.session-token-1>; Path=\/; Expires=<clock>; HttpOnly; SameSite=Lax$/,
    );
    assert.deepEqual(seen.steps[11].headers['set-cookie'], [
      'authjs.session-token=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax',
    ]);
  });

  it('@feathersjs/express: REST over a service, queries, throwing hooks, notFound, errorHandler, listen', async () => {
    const { feathers } = require('@feathersjs/feathers');
    const errors = require('@feathersjs/errors');
    const build = (fw: Framework, logged: unknown[]): Any => {
      // It builds on `require('express')`: on webapp, that is webapp (as when express is aliased).
      const express =
        fw === frameworks[0]![1] ? require('@feathersjs/express') : loadWithExpressAs(fw, '@feathersjs/express');
      assert.equal(express.original, fw);
      class Notes {
        notes = new Map<number, Any>();
        next = 1;
        setupPath = '';
        async setup(app: Any, path: string) {
          this.setupPath = path;
        }
        async find(params: Any) {
          const { $limit, author } = params.query ?? {};
          const all = [...this.notes.values()].filter((note) => !author || note.author === author);
          return $limit === undefined ? all : all.slice(0, Number($limit));
        }
        async get(id: string) {
          const note = this.notes.get(Number(id));
          if (!note) throw new errors.NotFound(`No note ${id}`, { id });
          return note;
        }
        async create(data: Any, params: Any) {
          const note = { id: this.next++, ...data, provider: params.provider };
          this.notes.set(note.id, note);
          return note;
        }
        async patch(id: string, data: Any) {
          const note = { ...(await this.get(id)), ...data };
          this.notes.set(note.id, note);
          return note;
        }
        async remove(id: string) {
          const note = await this.get(id);
          this.notes.delete(note.id);
          return note;
        }
        async archive(data: Any) {
          return { archived: data.ids };
        }
      }
      const app = express(feathers());
      app.use(express.json());
      app.use(express.urlencoded({ extended: true }));
      app.configure(express.rest());
      app.use('/notes', new Notes(), {
        methods: ['find', 'get', 'create', 'patch', 'remove', 'archive'],
      });
      app.service('notes').hooks({
        before: {
          create: [
            (context: Any) => {
              if (!context.data.text) throw new errors.BadRequest('Text is required', { field: 'text' });
            },
          ],
          remove: [
            (context: Any) => {
              if (context.id === '1') throw new errors.Forbidden('Note 1 stays');
            },
          ],
          patch: [
            (context: Any) => {
              if (context.data.fail) throw new Error('The hook broke');
            },
          ],
        },
        after: {
          find: [(context: Any) => void (context.http = { headers: { 'X-Total': String(context.result.length) } })],
        },
      });
      app.get('/setup', (req: Any, res: Any) => res.json({ path: app.service('notes').setupPath }));
      app.use('/plain', (req: Any, res: Any, next: Any) => next(Object.assign(new Error('Plain'), { code: 418 })));
      app.use(express.notFound({ verbose: true }));
      app.use(
        express.errorHandler({
          logger: {
            error: (err: Any) => logged.push(['error', err.name, err.message]),
            info: (err: Any) => logged.push(['info', err.name, err.message]),
          },
        }),
      );
      return app;
    };
    const json = { 'Content-Type': 'application/json', Accept: 'application/json' };
    const requests: RequestSpec[] = [
      { method: 'POST', path: '/notes', headers: json, body: '{"text":"one","author":"ada"}' },
      { method: 'POST', path: '/notes', headers: json, body: '{"text":"two","author":"alan"}' },
      {
        method: 'POST',
        path: '/notes',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: 'text=three&author=ada',
      },
      { method: 'POST', path: '/notes', headers: json, body: '{"author":"ada"}' },
      { method: 'POST', path: '/notes', headers: json, body: '{"text":' },
      { path: '/notes' },
      { path: '/notes?author=ada&$limit=1' },
      { path: '/notes/2' },
      { path: '/notes/9', headers: { Accept: 'application/json' } },
      { path: '/notes/9', headers: { Accept: 'text/html' } },
      { method: 'PATCH', path: '/notes/2', headers: json, body: '{"text":"TWO"}' },
      { method: 'PATCH', path: '/notes/2', headers: json, body: '{"fail":true}' },
      { method: 'PUT', path: '/notes/2', headers: json, body: '{"text":"put"}' },
      { method: 'POST', path: '/notes', headers: { ...json, 'X-Service-Method': 'archive' }, body: '{"ids":[1]}' },
      { method: 'DELETE', path: '/notes/1' },
      { method: 'DELETE', path: '/notes/3', headers: { Accept: 'application/json' } },
      { path: '/setup' },
      { path: '/plain', headers: { Accept: 'text/html' } },
      { path: '/plain' },
      { path: '/nowhere?x=1', headers: { Accept: 'text/html' } },
      { path: '/nowhere', headers: { Accept: 'application/json' } },
      { path: '/nowhere', headers: { Accept: 'text/plain' } },
    ];
    const seen: unknown[] = [];
    for (const [, fw] of frameworks) {
      const logged: unknown[] = [];
      const app = build(fw, logged);
      // app.listen runs app.setup (the services' setup) and resolves with the server.
      const server: http.Server = await app.listen(0, '127.0.0.1');
      if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
      const port = (server.address() as Any).port;
      const answers = [];
      for (const spec of requests) answers.push(seenOf(await rawRequest(port, spec)));
      server.closeAllConnections();
      await app.teardown();
      seen.push({ answers, logged, listening: server.listening });
    }
    assert.deepEqual(seen[1], seen[0], 'webapp differs');
    const { answers, logged } = seen[1] as Any;
    assert.deepEqual(
      answers.map((answer: Any) => answer.status),
      [201, 201, 201, 400, 500, 200, 200, 200, 404, 404, 200, 500, 405, 200, 403, 200, 200, 500, 500, 404, 404, 404],
    );
    assert.deepEqual(JSON.parse(answers[3].body), {
      name: 'BadRequest',
      message: 'Text is required',
      code: 400,
      className: 'bad-request',
      data: { field: 'text' },
    });
    assert.equal(answers[6].headers['x-total'], '1');
    assert.equal(answers[16].body, '{"path":"notes"}');
    assert.match(answers[9].body, /<title>Page Not Found<\/title>/);
    assert.match(answers[17].body, /<title>Internal Server Error<\/title>/);
    assert.deepEqual(logged[0], ['error', 'SyntaxError', answers[4] && JSON.parse(answers[4].body).message]);
  });
});
