import { Get, Module } from '@nestjs/common';
import type { Caller } from '../../../src/platform/auth/caller';
import { CurrentCaller, Public, Roles } from '../../../src/platform/auth/decorators';
import { AppException } from '../../../src/platform/problem/app-exception';
import { VersionedController } from '../../../src/platform/versioning/api-version';

/**
 * Test-only routes under /api/v1/rate-limit-probe: an authenticated route (so clients are told apart by
 * `sub`), a public one, and routes that end in 403 and 404, whose responses must carry the headers too.
 */
@VersionedController('rate-limit-probe', 1)
class RateLimitProbeController {
  @Get()
  whoAmI(@CurrentCaller() caller: Caller): { userId: string } {
    return { userId: caller.userId };
  }

  @Get('public')
  @Public()
  open(): { public: true } {
    return { public: true };
  }

  @Get('admin')
  @Roles('ADMIN')
  admin(): { admin: true } {
    return { admin: true };
  }

  @Get('missing')
  missing(): never {
    throw new AppException('RESOURCE_NOT_FOUND');
  }
}

@Module({ controllers: [RateLimitProbeController] })
export class RateLimitProbeModule {}
