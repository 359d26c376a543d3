import { Injectable } from '@nestjs/common';
import { Transactions } from '../../platform/database/transactions';
import { DEFAULT_LANGUAGE, type Language } from '../../platform/problem/language';
import { StoredUserSettings, UserSettingsRepository } from './persistence/user-settings.repository';

/** The settings of a user (`/users/me/settings`): a singleton, replaced as a whole. */
export type UserSettings = StoredUserSettings;

/** What a user who never saved settings has: the service's default language, notifications on. */
export const DEFAULT_USER_SETTINGS: Readonly<UserSettings> = {
  language: DEFAULT_LANGUAGE,
  notificationsEnabled: true,
};

/** Reading and replacing a user's settings; the stored language for LanguagePreference. */
@Injectable()
export class UserSettingsService {
  constructor(
    private readonly settings: UserSettingsRepository,
    private readonly transactions: Transactions,
  ) {}

  async get(userId: string): Promise<UserSettings> {
    return (await this.settings.read(userId)) ?? { ...DEFAULT_USER_SETTINGS };
  }

  /** PUT: both fields are required, so the stored settings are exactly the given ones. */
  replace(userId: string, settings: UserSettings): Promise<UserSettings> {
    return this.transactions.run((tx) => this.settings.write(tx, userId, settings));
  }

  /** The language the user chose, undefined when they never saved settings. */
  languageOf(userId: string): Promise<Language | undefined> {
    return this.settings.languageOf(userId);
  }
}
