/**
 * New Relic's agent does not catch Express's errors on early Node 20 releases: on 20.9.0,
 * express@4 under it records each as 'HttpError <status>', so the oracle the APM tests
 * compare webapp's records with is not there. 20.20 (the release checked) and the later
 * lines have it. A `skip` value for node:test.
 */
const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];

export const newRelicOracle: false | string =
  major > 20 || (major === 20 && minor >= 20) ? false : 'New Relic catches no Express error before Node 20.20';
