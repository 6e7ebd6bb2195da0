'use strict';
// Form ids. A form that creates something (a note, an account) carries a hidden
// `submission` field, a new UUID each time the form is rendered, and the route keeps it
// with what it creates: the same form sent again (a double click, or again after Back)
// finds what its first sending made instead of making it twice.
const { randomUUID } = require('node:crypto');

function badForm() {
  return Object.assign(new Error('This form is damaged. Reload the page and send it again.'), { status: 400 });
}

/**
 * The id the form was rendered with. Absent from a form rendered before it existed, or
 * from a client that sends its own requests: that form is not guarded.
 */
function submissionOf(req) {
  const { submission } = req.body;
  if (submission === undefined || submission === '') return undefined;
  if (typeof submission !== 'string' || !/^[0-9a-f-]{36}$/.test(submission)) throw badForm();
  return submission;
}

module.exports = { newSubmission: randomUUID, submissionOf, badForm };
