// express@4 (the reference webapp replaces), in the idiom of its guide.
import { createRequire } from 'node:module';
import { startExpressStyle } from './express-app.mjs';

const express = createRequire(import.meta.url)('express');
startExpressStyle(express);
