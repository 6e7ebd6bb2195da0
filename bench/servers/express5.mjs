// express@5 (installed under the alias express5), written exactly as for express@4.
import { createRequire } from 'node:module';
import { startExpressStyle } from './express-app.mjs';

const express = createRequire(import.meta.url)('express5');
startExpressStyle(express);
