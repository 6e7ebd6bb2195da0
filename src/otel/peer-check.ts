/**
 * What loading webapp/otel's peer dependency, @opentelemetry/api, throws (it is not
 * installed), or null: read by the ES module entry (scripts/build.mjs) before it
 * imports webapp/otel's CommonJS module, which requires the peer as it loads. Node 20
 * reports a CommonJS module that throws while an ES module imports it as an uncaught
 * error, even where the app's `import()` of that ES module catches it: thrown by the
 * entry's own code instead, the error is only the app's.
 */
let failure: unknown = null;
try {
  require('@opentelemetry/api');
} catch (err) {
  failure = err;
}
export = failure;
