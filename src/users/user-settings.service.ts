import { Injectable } from '@nestjs/common';
import type { Language } from '../problem/language';
import { UserSettingsRepository } from './persistence/user-settings.repository';
import { DEFAULT_USER_SETTINGS, type UserSettings } from './user-settings';

/** Reading and replacing a user's settings; the stored language for LanguagePreference. */
@Injectable()
export class UserSettingsService {
  constructor(private readonly settings: UserSettingsRepository) {}

  async get(userId: string): Promise<UserSettings> {
    return (await this.settings.read(userId)) ?? { ...DEFAULT_USER_SETTINGS };
  }

  /** PUT: both fields are required, so the stored settings are exactly the given ones. */
  replace(userId: string, settings: UserSettings): Promise<UserSettings> {
    return this.settings.write(userId, settings);
  }

  /** The language the user chose, undefined when they never saved settings. */
  languageOf(userId: string): Promise<Language | undefined> {
    return this.settings.languageOf(userId);
  }
}
