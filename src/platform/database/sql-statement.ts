declare const access: unique symbol;

/**
 * A statement the service runs: its text and, for a hot statement whose text never changes, the name it is
 * prepared under on each connection (PostgreSQL then parses and plans it once per connection, then only binds
 * and runs it: docs/decisions/0079-hot-statements-prepared.md).
 *
 * A statement is declared a read (`read`) or a write (`write`). A read runs anywhere (`Sql.rows`: in the
 * caller's transaction when there is one, else alone on the pool); a write only in a transaction (`Tx`), so a
 * write outside one does not compile. A text that writes or locks rows cannot be declared a read: `read`
 * refuses it when the statement is declared, not when it runs.
 *
 * A read that may lag other callers' writes by up to `DB_REPLICA_MAX_LAG_MS` (a list, a search, a report's or
 * an export's chunk) is declared with `replicaRead`: outside a transaction `Sql.rows` may run it on a read
 * replica (src/platform/database/replicas.ts). Every other read, and every read in a transaction, runs on the primary.
 */
export interface SqlStatement {
  readonly text: string;
  readonly name?: string;
  /** May be served by a read replica (`replicaRead`). */
  readonly replica?: true;
}

export interface ReadStatement extends SqlStatement {
  readonly [access]: 'read';
}

export interface WriteStatement extends SqlStatement {
  readonly [access]: 'write';
}

/**
 * Words that make a statement a write: data-modifying statements and CTEs, row locks (`FOR UPDATE`, `FOR
 * SHARE`…), and the functions that take a lock or move a sequence.
 */
const WRITES =
  /\b(INSERT|UPDATE|DELETE|MERGE|TRUNCATE|CREATE|DROP|ALTER|FOR\s+(NO\s+KEY\s+)?UPDATE|FOR\s+(KEY\s+)?SHARE|nextval|setval|pg_advisory\w*|pg_notify)\b/i;

/** A statement that only reads. `name`: prepared under that name (a fixed text run often). */
export function read(text: string, name?: string): ReadStatement {
  if (WRITES.test(text)) {
    throw new Error(`a statement that writes or locks is declared with write(), not read(): ${name ?? text}`);
  }
  return statement(text, name) as ReadStatement;
}

/**
 * A read that a read replica may serve: a list, a search, a report's or an export's chunk, never a single
 * resource read or anything an `If-Match` compares (those stay on the primary).
 */
export function replicaRead(text: string, name?: string): ReadStatement {
  return { ...read(text, name), replica: true };
}

/** A statement that writes (or locks rows): it runs only in a transaction. */
export function write(text: string, name?: string): WriteStatement {
  return statement(text, name) as WriteStatement;
}

function statement(text: string, name: string | undefined): SqlStatement {
  return name === undefined ? { text } : { text, name };
}

/**
 * A family of reads whose text is built per request from a few parts (a list's filters and sort), where a
 * generic plan is as good as a custom one (the caller's to judge: e.g. a scan of one customer's index range).
 * The first `limit` distinct texts are named `<family>.<n>` and prepared on each connection that runs them;
 * texts beyond the limit run unnamed, so rare variants never pile up on the connections
 * (docs/decisions/0087-customer-list-pages-prepared.md).
 */
export class StatementVariants {
  private readonly named = new Map<string, ReadStatement>();

  constructor(
    private readonly family: string,
    // Each prepared variant holds backend memory on every connection that ran it.
    private readonly limit = 8,
    // `read` or `replicaRead`: the family's texts are all one kind.
    private readonly declare: (text: string, name?: string) => ReadStatement = read,
  ) {}

  of(text: string): ReadStatement {
    let prepared = this.named.get(text);
    if (prepared === undefined && this.named.size < this.limit) {
      prepared = this.declare(text, `${this.family}.${this.named.size}`);
      this.named.set(text, prepared);
    }
    return prepared ?? this.declare(text);
  }
}
