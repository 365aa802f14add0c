#!/usr/bin/env node
'use strict';
// The CLI is compiled TypeScript; `npm run build` (run by `npm start` and `npm test`) produces dist/.
const path = require('path');
const fs = require('fs');
const entry = path.join(__dirname, '..', 'dist', 'cli', 'tide.js');
if (!fs.existsSync(entry)) {
  console.error('tide: dist/ is missing. Run `npm ci && npm run build` in the Tide checkout first.');
  process.exit(2);
}
require(entry);
