import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';

export const ROOT = path.resolve(__dirname, '..', '..');
export const RULESET = path.join(ROOT, '.spectral.yaml');
const SPECTRAL = path.join(ROOT, 'node_modules', '.bin', 'spectral');

export interface SpectralResult {
  code: string;
  message: string;
  path: string[];
  severity: number;
  /** The file the finding is in; absent when Spectral cannot map it to one. */
  source?: string;
}

/**
 * Lints the files with the installed Spectral CLI and the repository's ruleset, exactly as CI does, in
 * one process (a start costs about two seconds). Findings come back whatever their severity.
 */
export async function spectralLint(files: string[]): Promise<SpectralResult[]> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'spectral-'));
  const output = path.join(directory, 'results.json');
  try {
    await promisify(execFile)(
      SPECTRAL,
      [
        'lint',
        ...files,
        '--ruleset',
        RULESET,
        '--format',
        'json',
        '--output',
        output,
        '--fail-severity',
        'hint',
      ],
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } },
    ).catch((error: { code?: number; stderr?: string }) => {
      // Exit code 1 only says findings were written; anything else is a failure to lint.
      if (error.code !== 1 || !fs.existsSync(output))
        throw new Error(`spectral failed: ${error.stderr ?? error}`);
    });
    return JSON.parse(fs.readFileSync(output, 'utf8')) as SpectralResult[];
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

/** Writes a document to a temporary JSON file and lints it. */
export async function spectralLintDocument(document: unknown): Promise<SpectralResult[]> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'openapi-'));
  const file = path.join(directory, 'openapi.json');
  try {
    fs.writeFileSync(file, JSON.stringify(document));
    return await spectralLint([file]);
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}
