import { Injectable } from '@nestjs/common';
import { Sql } from '../../../platform/database/sql';
import { read, write } from '../../../platform/database/sql-statement';
import type { Tx } from '../../../platform/database/transactions';
import type { Language } from '../../../platform/problem/language';

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

const READ_SETTINGS = read('SELECT language, notifications_enabled FROM user_settings WHERE user_id = $1');
const WRITE_SETTINGS = write(
  `INSERT INTO user_settings (user_id, language, notifications_enabled) VALUES ($1, $2, $3)
   ON CONFLICT (user_id) DO UPDATE
     SET language = EXCLUDED.language, notifications_enabled = EXCLUDED.notifications_enabled,
         updated_at = now()
   RETURNING language, notifications_enabled`,
);
const READ_LANGUAGE = read('SELECT language FROM user_settings WHERE user_id = $1');

/** Every statement on `user_settings`. Writes take the caller's transaction. */
@Injectable()
export class UserSettingsRepository {
  constructor(private readonly sql: Sql) {}

  async read(userId: string): Promise<StoredUserSettings | undefined> {
    const rows = await this.sql.rows<SettingsRow>(READ_SETTINGS, [userId]);
    return rows[0] ? toSettings(rows[0]) : undefined;
  }

  /** Stores the whole settings of a user (insert or replace) and returns them as stored. */
  async write(tx: Tx, userId: string, settings: StoredUserSettings): Promise<StoredUserSettings> {
    const rows = await tx.rows<SettingsRow>(WRITE_SETTINGS, [
      userId,
      settings.language,
      settings.notificationsEnabled,
    ]);
    return toSettings(rows[0]);
  }

  /** The stored language alone: one primary-key read, on the path of localized text. */
  async languageOf(userId: string): Promise<Language | undefined> {
    const rows = await this.sql.rows<{ language: Language }>(READ_LANGUAGE, [userId]);
    return rows[0]?.language;
  }
}
