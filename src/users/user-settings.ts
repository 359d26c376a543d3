import { DEFAULT_LANGUAGE, type Language } from '../problem/language';

/** The settings of a user (`/users/me/settings`): a singleton, replaced as a whole. */
export interface UserSettings {
  /** Language of localized text when a request has no Accept-Language: one of the service's languages. */
  language: Language;
  notificationsEnabled: boolean;
}

/** What a user who never saved settings has: the service's default language, notifications on. */
export const DEFAULT_USER_SETTINGS: Readonly<UserSettings> = {
  language: DEFAULT_LANGUAGE,
  notificationsEnabled: true,
};
