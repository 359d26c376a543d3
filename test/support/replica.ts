/**
 * E2E_REPLICA_URL (a streaming standby of DATABASE_URL's server, e.g. from scripts/pg-replica.sh): the
 * standby's copy of the database that `databaseUrl` names (the same URL, its database and options, on the
 * standby's host and port with its credentials); undefined when the run has no standby.
 */
export function replicaOf(databaseUrl: string): string | undefined {
  const standby = process.env.E2E_REPLICA_URL;
  if (!standby) return undefined;
  const replica = new URL(databaseUrl);
  const { host, username, password } = new URL(standby);
  replica.host = host;
  replica.username = username;
  replica.password = password;
  return replica.toString();
}
