import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { Caller } from '../auth/caller';
import { AppException } from '../problem/app-exception';
import { UserEntity } from './user.entity';

/** Bounded so a flood of distinct tokens cannot grow memory; a miss only costs one idempotent upsert. */
const KNOWN_USERS_LIMIT = 10_000;

export interface ProfileChanges {
  displayName?: string;
  email?: string;
  regionId?: number;
  segment?: string;
}

@Injectable()
export class UsersService {
  /** userId → roles last written, so the just-in-time upsert runs once per user and process. */
  private readonly known = new Map<string, string>();

  constructor(@InjectRepository(UserEntity) private readonly users: Repository<UserEntity>) {}

  /** Creates the caller's profile row on first sight and keeps its roles in step with the token. */
  async ensureUser(caller: Caller): Promise<void> {
    const rolesKey = caller.roles.join(',');
    if (this.known.get(caller.userId) === rolesKey) return;
    await this.users.query(
      `INSERT INTO users (user_id, roles) VALUES ($1, $2)
       ON CONFLICT (user_id) DO UPDATE SET roles = EXCLUDED.roles WHERE users.roles IS DISTINCT FROM EXCLUDED.roles`,
      [caller.userId, caller.roles],
    );
    if (this.known.size >= KNOWN_USERS_LIMIT) this.known.delete(this.known.keys().next().value as string);
    this.known.set(caller.userId, rolesKey);
  }

  /** A customer named by an admin may not have signed in yet: give them a profile row. */
  async ensureCustomer(userId: string): Promise<void> {
    await this.users.query(
      `INSERT INTO users (user_id, roles) VALUES ($1, '{CUSTOMER}') ON CONFLICT DO NOTHING`,
      [userId],
    );
  }

  async get(userId: string): Promise<UserEntity> {
    const user = await this.users.findOne({ where: { userId } });
    if (!user) throw new AppException('USER_NOT_FOUND', { args: { userId } });
    return user;
  }

  /** PUT semantics: fields absent from the body are removed. */
  async replaceProfile(userId: string, changes: ProfileChanges): Promise<UserEntity> {
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
    return this.get(userId);
  }
}
