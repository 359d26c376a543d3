import { Get, Module } from '@nestjs/common';
import type { Caller } from '../../../src/platform/auth/caller';
import { CurrentCaller, Public, Roles } from '../../../src/platform/auth/decorators';
import { VersionedController } from '../../../src/platform/versioning/api-version';

/** Test-only routes under /api/v1/auth-probe that exercise the bearer guard and its decorators. */
@VersionedController('auth-probe', 1)
class AuthProbeController {
  @Get('caller')
  currentCaller(@CurrentCaller() caller: Caller): Caller {
    return caller;
  }

  @Get('admin')
  @Roles('ADMIN')
  admin(@CurrentCaller() caller: Caller): Caller {
    return caller;
  }

  @Get('public')
  @Public()
  open(): { public: true } {
    return { public: true };
  }
}

/** A controller whose routes all need ADMIN, with one handler widening it to CUSTOMER as well. */
@VersionedController('auth-probe-admin', 1)
@Roles('ADMIN')
class AdminProbeController {
  @Get()
  list(): { admin: true } {
    return { admin: true };
  }

  @Get('shared')
  @Roles('CUSTOMER', 'ADMIN')
  shared(): { shared: true } {
    return { shared: true };
  }
}

@Module({ controllers: [AuthProbeController, AdminProbeController] })
export class AuthProbeModule {}
