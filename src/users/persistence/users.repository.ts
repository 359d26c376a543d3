import { Injectable } from '@nestjs/common';
import { PooledStatements } from '../../database/pooled-statements';
import type { ProfileChanges, User } from '../domain/user';

/** The columns of a `User`. */
const USER_COLUMNS = `user_id AS "userId", roles, display_name AS "displayName", email, region_id AS "regionId",
  segment, created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Every statement on `users`. */
@Injectable()
export class UsersRepository {
  constructor(private readonly statements: PooledStatements) {}

  /** Creates the profile row of `userId` with `roles`, or brings its roles in step with them. */
  async upsertRoles(userId: string, roles: readonly string[]): Promise<void> {
    await this.statements.rows(
      `INSERT INTO users (user_id, roles) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET roles = EXCLUDED.roles WHERE users.roles IS DISTINCT FROM EXCLUDED.roles`,
      [userId, roles],
    );
  }

  /** Creates a customer's profile row unless there is one. */
  async insertCustomer(userId: string): Promise<void> {
    await this.statements.rows(
      `INSERT INTO users (user_id, roles) VALUES ($1, '{CUSTOMER}') ON CONFLICT DO NOTHING`,
      [userId],
    );
  }

  async read(userId: string): Promise<User | undefined> {
    const [user] = await this.statements.rows<User>(`SELECT ${USER_COLUMNS} FROM users WHERE user_id = $1`, [
      userId,
    ]);
    return user;
  }

  /**
   * Replaces the profile's fields (absent ones become NULL), bumping its version; the profile as stored
   * afterwards, or undefined when there is none.
   */
  async replaceProfile(userId: string, changes: ProfileChanges): Promise<User | undefined> {
    const [user] = await this.statements.rows<User>(
      `UPDATE users SET display_name = $2, email = $3, region_id = $4, segment = $5, updated_at = now(),
         version = version + 1
       WHERE user_id = $1 RETURNING ${USER_COLUMNS}`,
      [
        userId,
        changes.displayName ?? null,
        changes.email ?? null,
        changes.regionId ?? null,
        changes.segment ?? null,
      ],
    );
    return user;
  }
}
