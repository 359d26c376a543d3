import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export interface Certificate {
  /** PEM private key. */
  key: string;
  /** PEM certificate, self-signed: trust it as its own authority. */
  cert: string;
}

/**
 * A self-signed certificate for `names` (DNS names or IP addresses), valid for a day, made by the openssl
 * command line (Node makes keys, not certificates). Nothing stays on disk.
 */
export function selfSignedCertificate(...names: string[]): Certificate {
  const dir = mkdtempSync(path.join(tmpdir(), 'order-service-tls-'));
  try {
    const altNames = names.map((name) => (/^[\d.]+$|:/.test(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${names[0]}`,
        '-addext',
        `subjectAltName=${altNames}`,
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return {
      key: readFileSync(path.join(dir, 'key.pem'), 'utf8'),
      cert: readFileSync(path.join(dir, 'cert.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
