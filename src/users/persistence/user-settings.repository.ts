import { Injectable } from '@nestjs/common';
import { PooledStatements } from '../../database/pooled-statements';
import type { Language } from '../../problem/language';

/** A user's settings as stored: the language of localized text without Accept-Language, notifications. */
export interface StoredUserSettings {
  language: Language;
  notificationsEnabled: boolean;
}

interface SettingsRow {
  language: Language;
  notifications_enabled: boolean;
}

const toSettings = (row: SettingsRow): StoredUserSettings => ({
  language: row.language,
  notificationsEnabled: row.notifications_enabled,
});

/** Every statement on `user_settings`. */
@Injectable()
export class UserSettingsRepository {
  constructor(private readonly statements: PooledStatements) {}

  async read(userId: string): Promise<StoredUserSettings | undefined> {
    const rows = await this.statements.rows<SettingsRow>(
      'SELECT language, notifications_enabled FROM user_settings WHERE user_id = $1',
      [userId],
    );
    return rows[0] ? toSettings(rows[0]) : undefined;
  }

  /** Stores the whole settings of a user (insert or replace) and returns them as stored. */
  async write(userId: string, settings: StoredUserSettings): Promise<StoredUserSettings> {
    const rows = await this.statements.rows<SettingsRow>(
      `INSERT INTO user_settings (user_id, language, notifications_enabled) VALUES ($1, $2, $3)
       ON CONFLICT (user_id) DO UPDATE
         SET language = EXCLUDED.language, notifications_enabled = EXCLUDED.notifications_enabled,
             updated_at = now()
       RETURNING language, notifications_enabled`,
      [userId, settings.language, settings.notificationsEnabled],
    );
    return toSettings(rows[0]);
  }

  /** The stored language alone: one primary-key read, on the path of localized text. */
  async languageOf(userId: string): Promise<Language | undefined> {
    const rows = await this.statements.rows<{ language: Language }>(
      'SELECT language FROM user_settings WHERE user_id = $1',
      [userId],
    );
    return rows[0]?.language;
  }
}
