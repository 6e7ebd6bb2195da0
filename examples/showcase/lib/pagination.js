'use strict';
// `?page=N` (and, for the API, `?perPage=N`) read from the query string by
// express-validator; shared by the HTML list and the JSON API.
const { query } = require('express-validator');

// Each given once: `?page=1&page=2` (an array) would otherwise pass, element by element.
const paginationChecks = [
  query('page')
    .optional()
    .not()
    .isArray()
    .withMessage('page must be given once')
    .bail()
    .isInt({ min: 1, max: 100000 })
    .withMessage('page must be a whole number from 1')
    .toInt(),
  query('perPage')
    .optional()
    .not()
    .isArray()
    .withMessage('perPage must be given once')
    .bail()
    .isInt({ min: 1, max: 50 })
    .withMessage('perPage must be a whole number from 1 to 50')
    .toInt(),
];

/** Where a page starts and what the links around it are. */
function pageWindow({ page = 1, perPage }, total) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  return {
    page,
    perPage,
    total,
    pages,
    offset: (page - 1) * perPage,
    limit: perPage,
    previous: page > 1 ? page - 1 : null,
    next: page < pages ? page + 1 : null,
  };
}

module.exports = { paginationChecks, pageWindow };
