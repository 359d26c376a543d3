import { ApiProperty } from '@nestjs/swagger';
import { IsBoolean, IsDefined, IsIn } from 'class-validator';
import { type Language, SUPPORTED_LANGUAGES } from '../../../problem/language';

const LANGUAGE = {
  enum: SUPPORTED_LANGUAGES,
  enumName: 'Language',
  description: 'Language of `detail` and `violations[].message` for requests without `Accept-Language`.',
} as const;

/** Body of `PUT /users/me/settings`: the whole singleton, both fields required. */
export class ReplaceUserSettingsRequest {
  @ApiProperty(LANGUAGE)
  @IsDefined()
  @IsIn(SUPPORTED_LANGUAGES)
  language: Language;

  @ApiProperty()
  @IsDefined()
  @IsBoolean()
  notificationsEnabled: boolean;
}

export class UserSettingsResponse {
  @ApiProperty(LANGUAGE)
  language: Language;

  @ApiProperty()
  notificationsEnabled: boolean;
}
