import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { ProfileChanges, User } from '../domain/user';
import { UserEntity } from './user.entity';

/** Every statement on `users`. */
@Injectable()
export class UsersRepository {
  constructor(@InjectRepository(UserEntity) private readonly users: Repository<UserEntity>) {}

  /** Creates the profile row of `userId` with `roles`, or brings its roles in step with them. */
  async upsertRoles(userId: string, roles: readonly string[]): Promise<void> {
    await this.users.query(
      `INSERT INTO users (user_id, roles) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET roles = EXCLUDED.roles WHERE users.roles IS DISTINCT FROM EXCLUDED.roles`,
      [userId, roles],
    );
  }

  /** Creates a customer's profile row unless there is one. */
  async insertCustomer(userId: string): Promise<void> {
    await this.users.query(
      `INSERT INTO users (user_id, roles) VALUES ($1, '{CUSTOMER}') ON CONFLICT DO NOTHING`,
      [userId],
    );
  }

  read(userId: string): Promise<User | null> {
    return this.users.findOne({ where: { userId } });
  }

  /** Replaces the profile's fields (absent ones become NULL), bumping its version. */
  async replaceProfile(userId: string, changes: ProfileChanges): Promise<void> {
    await this.users.update(
      { userId },
      {
        displayName: changes.displayName ?? null,
        email: changes.email ?? null,
        regionId: changes.regionId ?? null,
        segment: changes.segment ?? null,
        updatedAt: () => 'now()',
        version: () => 'version + 1',
      },
    );
  }
}
