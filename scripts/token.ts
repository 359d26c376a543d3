import { runTokenCommand } from '../src/platform/auth/token-cli';

/**
 * `npm run token -- --sub <uuid> --role ADMIN [--role CUSTOMER] [--ttl 3600]`: prints a bearer token signed
 * with JWT_SECRET (the token only, on stdout). The logic and its tests live in src/platform/auth/token-cli.ts.
 */
export function main(argv: string[] = process.argv.slice(2)): Promise<number> {
  return runTokenCommand(argv, process.env, {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  });
}

if (require.main === module) {
  void main().then((code) => {
    process.exitCode = code;
  });
}
