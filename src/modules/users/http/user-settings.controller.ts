import { Body } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { Caller } from '../../../platform/auth/caller';
import { CurrentCaller } from '../../../platform/auth/decorators';
import { AliasRoute } from '../../../platform/http/alias-route';
import { ApiEndpoint } from '../../../platform/openapi/api-endpoint.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import { UserSettingsService } from '../user-settings.service';
import { ReplaceUserSettingsRequest, UserSettingsResponse } from './dto/user-settings.dto';

/** The caller's settings, a singleton under the `me` alias: `/users/me/settings`. */
@ApiTags('Users')
@VersionedController('users', 1)
export class UserSettingsController {
  constructor(private readonly settings: UserSettingsService) {}

  @AliasRoute('GET', 'me/settings')
  @ApiEndpoint({
    operationId: 'getUserSettings',
    summary: "Get the caller's settings",
    description: 'A user who never saved settings has `language` `ru` and `notificationsEnabled` true.',
    type: UserSettingsResponse,
  })
  get(@CurrentCaller() caller: Caller): Promise<UserSettingsResponse> {
    return this.settings.get(caller.userId);
  }

  @AliasRoute('PUT', 'me/settings')
  @ApiEndpoint({
    operationId: 'updateUserSettings',
    summary: "Replace the caller's settings",
    description:
      'Both fields are required. From then on, requests of the caller without `Accept-Language` get ' +
      'their localized text (problem details, batch item details) in `language`.',
    type: UserSettingsResponse,
  })
  replace(
    @CurrentCaller() caller: Caller,
    @Body() body: ReplaceUserSettingsRequest,
  ): Promise<UserSettingsResponse> {
    return this.settings.replace(caller.userId, body);
  }
}
