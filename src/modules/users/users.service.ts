import { Injectable } from '@nestjs/common';
import type { Caller } from '../../platform/auth/caller';
import { Transactions } from '../../platform/database/transactions';
import { AppException } from '../../platform/problem/app-exception';
import type { ProfileChanges, User } from './domain/user';
import { UsersRepository } from './persistence/users.repository';

/** Bounded so a flood of distinct tokens cannot grow memory; a miss only costs one idempotent upsert. */
const KNOWN_USERS_LIMIT = 10_000;

@Injectable()
export class UsersService {
  /** userId → roles last written, so the just-in-time upsert runs once per user and process. */
  private readonly known = new Map<string, string>();

  constructor(
    private readonly users: UsersRepository,
    private readonly transactions: Transactions,
  ) {}

  /** Creates the caller's profile row on first sight and keeps its roles in step with the token. */
  async ensureUser(caller: Caller): Promise<void> {
    const rolesKey = caller.roles.join(',');
    if (this.known.get(caller.userId) === rolesKey) return;
    // Its own transaction: the profile row stays whatever becomes of the request.
    await this.transactions.runAlone((tx) => this.users.upsertRoles(tx, caller.userId, caller.roles));
    if (this.known.size >= KNOWN_USERS_LIMIT) this.known.delete(this.known.keys().next().value as string);
    this.known.set(caller.userId, rolesKey);
  }

  /** A customer named by an admin may not have signed in yet: give them a profile row. */
  async ensureCustomer(userId: string): Promise<void> {
    await this.transactions.run((tx) => this.users.insertCustomer(tx, userId));
  }

  async get(userId: string): Promise<User> {
    const user = await this.users.read(userId);
    if (!user) throw new AppException('USER_NOT_FOUND', { args: { userId } });
    return user;
  }

  /** PUT semantics: fields absent from the body are removed. */
  async replaceProfile(userId: string, changes: ProfileChanges): Promise<User> {
    const user = await this.transactions.run((tx) => this.users.replaceProfile(tx, userId, changes));
    if (!user) throw new AppException('USER_NOT_FOUND', { args: { userId } });
    return user;
  }
}
