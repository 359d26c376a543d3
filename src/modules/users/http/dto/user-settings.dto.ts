import { type Language, SUPPORTED_LANGUAGES } from '../../../../platform/problem/language';
import { boolean, oneOf, RequestField, ResponseField } from '../../../../platform/validation/fields';

const LANGUAGE = oneOf(SUPPORTED_LANGUAGES, 'Language');
const LANGUAGE_DESCRIPTION =
  'Language of `detail` and `violations[].message` for requests without `Accept-Language`.';

/** Body of `PUT /users/me/settings`: the whole singleton, both fields required. */
export class ReplaceUserSettingsRequest {
  @RequestField(LANGUAGE, { description: LANGUAGE_DESCRIPTION })
  language: Language;

  @RequestField(boolean())
  notificationsEnabled: boolean;
}

export class UserSettingsResponse {
  @ResponseField(LANGUAGE, { description: LANGUAGE_DESCRIPTION })
  language: Language;

  @ResponseField(boolean())
  notificationsEnabled: boolean;
}
