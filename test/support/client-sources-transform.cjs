/**
 * Jest transform of the client package's sources (client/src, TypeScript ES modules) into CommonJS, the
 * module system the tests run on. Not ts-jest: its compiler is shared by every ts-jest transform of a project,
 * so a second configuration (CommonJS for files of a `"type": "module"` package) would not take. Types are
 * checked by the client's own build and by `npm run typecheck`.
 */
const ts = require('typescript');

module.exports = {
  process(source, fileName) {
    const { outputText, sourceMapText } = ts.transpileModule(source, {
      fileName,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
        sourceMap: true,
      },
    });
    return { code: outputText, map: sourceMapText };
  },
};
