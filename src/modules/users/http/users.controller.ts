import { Body, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { type Caller, isAdmin } from '../../../platform/auth/caller';
import { CurrentCaller } from '../../../platform/auth/decorators';
import { AliasRoute } from '../../../platform/http/alias-route';
import { ApiEndpoint } from '../../../platform/openapi/api-endpoint.decorator';
import { AppException } from '../../../platform/problem/app-exception';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import type { User } from '../domain/user';
import { UsersService } from '../users.service';
import { ReplaceProfileRequest, UserResponse } from './dto/user.dto';

function toUserResponse(user: User): UserResponse {
  return {
    userId: user.userId,
    roles: user.roles,
    displayName: user.displayName ?? undefined,
    email: user.email ?? undefined,
    regionId: user.regionId ?? undefined,
    segment: user.segment ?? undefined,
    createdAt: user.createdAt,
    updatedAt: user.updatedAt ?? undefined,
  };
}

/** Profiles. `me` stands for the caller's own id; the literal route wins over `{userId}`. */
@ApiTags('Users')
@VersionedController('users', 1)
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @AliasRoute('GET', 'me')
  @ApiEndpoint({ operationId: 'getCurrentUser', summary: "Get the caller's profile", type: UserResponse })
  async me(@CurrentCaller() caller: Caller): Promise<UserResponse> {
    return toUserResponse(await this.users.get(caller.userId));
  }

  @AliasRoute('PUT', 'me')
  @ApiEndpoint({
    operationId: 'updateCurrentUser',
    summary: "Replace the caller's profile fields",
    type: UserResponse,
  })
  async replaceMe(
    @CurrentCaller() caller: Caller,
    @Body() body: ReplaceProfileRequest,
  ): Promise<UserResponse> {
    return toUserResponse(await this.users.replaceProfile(caller.userId, body));
  }

  @Get(':userId')
  @ApiEndpoint({
    operationId: 'getUser',
    summary: 'Get a user profile (admin, or the caller themself)',
    description:
      'Administrators may read any profile; other callers only their own (else 403 ACCESS_DENIED).',
    errors: ['USER_NOT_FOUND', 'ACCESS_DENIED'],
    type: UserResponse,
  })
  async get(@CurrentCaller() caller: Caller, @UuidParam('userId') userId: string): Promise<UserResponse> {
    if (userId !== caller.userId && !isAdmin(caller)) throw new AppException('ACCESS_DENIED');
    return toUserResponse(await this.users.get(userId));
  }
}
