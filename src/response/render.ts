/**
 * `res.render`: the app renders (`req.app`, the app the request is in) with
 * `res.locals` merged under the render locals. Without a callback the HTML is
 * sent, and a rendering error goes to `next`.
 */
import type { RenderCallback, Response } from './types';

export const renderMethods = {
  render(this: Response, view: string, options?: object | RenderCallback, callback?: RenderCallback) {
    const req = this.req;
    let done = callback;
    let opts = (options || {}) as Record<string, unknown>;
    if (typeof options === 'function') {
      done = options as RenderCallback;
      opts = {};
    }
    // Express passes res.locals by setting `_locals` on the caller's own options object.
    opts._locals = this.locals;
    done =
      done ||
      ((err, html) => {
        if (err) return req.next(err);
        this.send(html);
      });
    req.app.render(view, opts, done);
  },
};
