import * as path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '..', '..');
const FIXTURE = path.join(__dirname, 'types', 'typed-calls.ts');

/**
 * The client's types, compiled: test/client/types/typed-calls.ts must compile without a diagnostic. Its
 * `@ts-expect-error` lines (a switch missing a declared code, a code the operation does not declare, a wrong
 * field type, an unknown path) count as diagnostics when they compile, so this fails both when the types
 * refuse a right call and when they accept a wrong one.
 */
describe('client types', () => {
  it('accept the right calls and refuse the wrong ones (test/client/types/typed-calls.ts)', () => {
    const { config } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
    const program = ts.createProgram([FIXTURE], { ...options, noEmit: true, incremental: false });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const where = diagnostic.file
        ? `${path.relative(ROOT, diagnostic.file.fileName)}:${
            diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1
          }`
        : '';
      return `${where} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
    expect(diagnostics).toEqual([]);
  });
});
