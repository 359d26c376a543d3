import { Injectable } from '@nestjs/common';
import { PooledStatements } from '../../database/pooled-statements';
import type { UserEntity } from '../user.entity';

/** The profile fields a caller replaces as a whole (PUT). */
export interface ProfileFields {
  displayName: string | null;
  email: string | null;
  regionId: number | null;
  segment: string | null;
}

const USER_COLUMNS = `user_id AS "userId", roles, display_name AS "displayName", email, region_id AS "regionId",
  segment, version, created_at AS "createdAt", updated_at AS "updatedAt"`;

/** Every statement on `users`. */
@Injectable()
export class UsersRepository {
  constructor(private readonly statements: PooledStatements) {}

  /** Creates the user's row, or brings its roles in step with `roles`. */
  async upsert(userId: string, roles: string[]): Promise<void> {
    await this.statements.rows(
      `INSERT INTO users (user_id, roles) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET roles = EXCLUDED.roles WHERE users.roles IS DISTINCT FROM EXCLUDED.roles`,
      [userId, roles],
    );
  }

  /** Creates a customer's row unless the user has one. */
  async insertCustomer(userId: string): Promise<void> {
    await this.statements.rows(
      `INSERT INTO users (user_id, roles) VALUES ($1, '{CUSTOMER}') ON CONFLICT DO NOTHING`,
      [userId],
    );
  }

  async read(userId: string): Promise<UserEntity | undefined> {
    const [user] = await this.statements.rows<UserEntity>(
      `SELECT ${USER_COLUMNS} FROM users WHERE user_id = $1`,
      [userId],
    );
    return user;
  }

  /** Replaces the profile fields; the user as stored afterwards, or undefined when there is none. */
  async replaceProfile(userId: string, fields: ProfileFields): Promise<UserEntity | undefined> {
    const [user] = await this.statements.rows<UserEntity>(
      `UPDATE users SET display_name = $2, email = $3, region_id = $4, segment = $5, updated_at = now(),
         version = version + 1
       WHERE user_id = $1 RETURNING ${USER_COLUMNS}`,
      [userId, fields.displayName, fields.email, fields.regionId, fields.segment],
    );
    return user;
  }
}
