import { Injectable } from '@nestjs/common';
import { Sql } from '../../../platform/database/sql';
import { read, write } from '../../../platform/database/sql-statement';
import type { Tx } from '../../../platform/database/transactions';
import type { ProfileChanges, User } from '../domain/user';

/** The columns of a `User`. */
const USER_COLUMNS = `user_id AS "userId", roles, display_name AS "displayName", email, region_id AS "regionId",
  segment, created_at AS "createdAt", updated_at AS "updatedAt"`;

const UPSERT_ROLES = write(
  `INSERT INTO users (user_id, roles) VALUES ($1, $2)
   ON CONFLICT (user_id) DO UPDATE SET roles = EXCLUDED.roles WHERE users.roles IS DISTINCT FROM EXCLUDED.roles`,
);
const INSERT_CUSTOMER = write(
  `INSERT INTO users (user_id, roles) VALUES ($1, '{CUSTOMER}') ON CONFLICT DO NOTHING`,
);
const READ_USER = read(`SELECT ${USER_COLUMNS} FROM users WHERE user_id = $1`);
const REPLACE_PROFILE = write(
  `UPDATE users SET display_name = $2, email = $3, region_id = $4, segment = $5, updated_at = now(),
     version = version + 1
   WHERE user_id = $1 RETURNING ${USER_COLUMNS}`,
);

/** Every statement on `users`. Writes take the caller's transaction. */
@Injectable()
export class UsersRepository {
  constructor(private readonly sql: Sql) {}

  /** Creates the profile row of `userId` with `roles`, or brings its roles in step with them. */
  async upsertRoles(tx: Tx, userId: string, roles: readonly string[]): Promise<void> {
    await tx.rowCount(UPSERT_ROLES, [userId, roles]);
  }

  /** Creates a customer's profile row unless there is one. */
  async insertCustomer(tx: Tx, userId: string): Promise<void> {
    await tx.rowCount(INSERT_CUSTOMER, [userId]);
  }

  async read(userId: string): Promise<User | undefined> {
    const [user] = await this.sql.rows<User>(READ_USER, [userId]);
    return user;
  }

  /**
   * Replaces the profile's fields (absent ones become NULL), bumping its version; the profile as stored
   * afterwards, or undefined when there is none.
   */
  async replaceProfile(tx: Tx, userId: string, changes: ProfileChanges): Promise<User | undefined> {
    const [user] = await tx.rows<User>(REPLACE_PROFILE, [
      userId,
      changes.displayName ?? null,
      changes.email ?? null,
      changes.regionId ?? null,
      changes.segment ?? null,
    ]);
    return user;
  }
}
