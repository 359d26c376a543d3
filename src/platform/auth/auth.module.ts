import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { Authenticator } from './authenticator';
import { BearerAuthGuard } from './bearer-auth.guard';
import { TokenVerifier } from './token-verifier';

/**
 * Bearer authentication (global guard), roles, the typed caller. Global so the rate limiter can key
 * clients by the authenticated `sub` through the same memoized Authenticator.
 */
@Global()
@Module({
  providers: [
    {
      provide: TokenVerifier,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => TokenVerifier.fromConfig(config.auth),
    },
    Authenticator,
    { provide: APP_GUARD, useClass: BearerAuthGuard },
  ],
  exports: [Authenticator],
})
export class AuthModule {}
