import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import * as ts from 'typescript';

/**
 * The runnable examples of a markdown document: fenced blocks whose info string is `sh example` or
 * `ts example`, optionally followed by `receiver` (a webhook receiver: the test delivers an event to the
 * server it starts), `status=<code>` (sh: the last HTTP status `curl -i` printed) and `prints=<text>` (the rest
 * of the line: the example's output must contain it, case aside).
 */
export interface DocExample {
  /** The `## ` heading the block sits under. */
  section: string;
  language: 'sh' | 'ts';
  code: string;
  /** A webhook receiver: it starts an HTTP server, and the test delivers an event to it. */
  receiver?: true;
  status?: number;
  prints?: string;
  /** 1-based line of the opening fence, to find the block. */
  line: number;
}

const OPENING = /^```(sh|ts) example(?: (receiver))?(?: status=(\d{3}))?(?: prints=(.+))?\s*$/;

export function docExamples(markdown: string): DocExample[] {
  const examples: DocExample[] = [];
  let section = '';
  let open: DocExample | undefined;
  const code: string[] = [];
  markdown.split('\n').forEach((text, index) => {
    if (open) {
      if (/^```\s*$/.test(text)) {
        examples.push({ ...open, code: code.join('\n') });
        open = undefined;
        code.length = 0;
      } else {
        code.push(text);
      }
      return;
    }
    const heading = /^## (.+)$/.exec(text);
    if (heading) section = heading[1];
    const fence = OPENING.exec(text);
    if (fence) {
      open = {
        section,
        language: fence[1] as 'sh' | 'ts',
        code: '',
        ...(fence[2] ? { receiver: true as const } : {}),
        ...(fence[3] ? { status: Number(fence[3]) } : {}),
        ...(fence[4] ? { prints: fence[4] } : {}),
        line: index + 1,
      };
    }
  });
  if (open) throw new Error(`the example at line ${open.line} has no closing fence`);
  return examples;
}

/**
 * The statuses `curl -i` printed (`HTTP/1.1 201 Created`, `HTTP/2 200`), in order. Not only at the start of a
 * line: curl prints the next response right after a body that does not end with a line break.
 */
export function printedStatuses(output: string): number[] {
  return [...output.matchAll(/HTTP\/\d(?:\.\d)? (\d{3}) /g)].map((m) => Number(m[1]));
}

/** Runs a shell example with bash (`set -euo pipefail`) in a directory of its own, with `env` added. */
export async function runShellExample(
  code: string,
  env: Record<string, string>,
): Promise<{ exitCode: number; output: string }> {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'doc-example-'));
  try {
    return await new Promise((resolve) => {
      execFile(
        'bash',
        ['-c', `set -euo pipefail\n${code}`],
        {
          cwd,
          env: { PATH: process.env.PATH ?? '', HOME: cwd, ...env },
          timeout: 150_000,
          maxBuffer: 1 << 24,
        },
        (error, stdout, stderr) => {
          const exitCode = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolve({ exitCode, output: `${stdout}${stderr}` });
        },
      );
    });
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
}

/** The example's `import … from '…';` statements, and the rest of its code. */
function splitImports(code: string): { imports: string; body: string } {
  const statement = /^import\s[\s\S]*?\sfrom\s+'[^']+';[ \t]*$/gm;
  const imports = code.match(statement) ?? [];
  return { imports: imports.join('\n'), body: code.replace(statement, '') };
}

/**
 * A TypeScript example as a module: its imports, then its code in the body of an async function (so it may
 * `await` and `return`) that takes the names the document says the examples have. The code sits in a block of
 * its own, so it may declare a name the context also has (`const client = …`).
 */
export function exampleModule(code: string, context: readonly string[]): string {
  const { imports, body } = splitImports(code);
  return [
    imports,
    `export default async function example(context: Record<string, any>): Promise<void> {`,
    `  const { ${context.join(', ')} } = context;`,
    `  {`,
    body,
    `  }`,
    `}`,
  ].join('\n');
}

/**
 * Runs a TypeScript example: compiled as `exampleModule` makes it, `@order-service/client` and other imports
 * resolved by `resolve`, with `context`'s values; `console` is the context's too, so output can be checked.
 */
export async function runTypeScriptExample(
  code: string,
  context: Record<string, unknown>,
  resolve: (name: string) => unknown,
): Promise<void> {
  const { outputText } = ts.transpileModule(exampleModule(code, Object.keys(context)), {
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      esModuleInterop: true,
    },
  });
  const module = { exports: {} as { default?: (context: Record<string, unknown>) => Promise<void> } };
  new Function('exports', 'require', 'module', outputText)(module.exports, resolve, module);
  await module.exports.default!(context);
}

/**
 * Type-checks TypeScript examples against the client's declarations: each becomes a module (as
 * `exampleModule` makes it) after `declarations` of the context's names. Returns the compiler's messages.
 */
export function typeCheckExamples(
  examples: ReadonlyArray<{ name: string; code: string }>,
  declarations: string,
  context: readonly string[],
  tsconfigPath: string,
): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    tsconfigPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => undefined,
    },
  );
  if (!parsed) throw new Error(`cannot read ${tsconfigPath}`);
  const dir = path.dirname(tsconfigPath);
  const files = new Map<string, string>();
  examples.forEach(({ code }, index) => {
    const module = exampleModule(code, context).replace(
      /const \{ [^}]* \} = context;/,
      '// the context, declared below',
    );
    files.set(path.join(dir, `__doc_example_${index}.ts`), `${module}\n${declarations}\n`);
  });
  const options = { ...parsed.options, noEmit: true, noUnusedLocals: false, noUnusedParameters: false };
  const host = ts.createCompilerHost(options);
  const read = host.readFile.bind(host);
  const exists = host.fileExists.bind(host);
  host.readFile = (file) => files.get(file) ?? read(file);
  host.fileExists = (file) => files.has(file) || exists(file);
  const program = ts.createProgram([...files.keys()], options, host);
  const names = new Map(
    examples.map(({ name }, index) => [path.join(dir, `__doc_example_${index}.ts`), name]),
  );
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file && files.has(d.file.fileName))
    .map((d) => {
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      const text = d.file!.text.split('\n')[line]?.trim();
      return `${names.get(d.file!.fileName)}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')} (${text})`;
    });
}

/**
 * `node:http` for examples, with servers that listen on a free port of 127.0.0.1 whatever port the example
 * names (`listen(8080)` in the text), and are kept in `servers` for the test to find and close.
 */
export function recordingHttp(servers: http.Server[]): typeof http {
  const createServer = ((...args: Parameters<typeof http.createServer>) => {
    const server = http.createServer(...args);
    const listen = server.listen.bind(server);
    server.listen = ((...listenArgs: unknown[]) => {
      const callback = listenArgs.find((arg): arg is () => void => typeof arg === 'function');
      return listen(0, '127.0.0.1', callback);
    }) as typeof server.listen;
    servers.push(server);
    return server;
  }) as typeof http.createServer;
  return { ...http, createServer };
}
