// tsc does not copy non-TS files: the i18n catalogues must travel with dist/.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
fs.cpSync(path.join(root, 'i18n'), path.join(root, 'dist', 'i18n'), { recursive: true });
