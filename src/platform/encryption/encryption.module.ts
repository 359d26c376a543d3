import { Global, Module } from '@nestjs/common';
import type { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { SecretCipher } from './secret-cipher';

/** The cipher of secrets kept at rest (WEBHOOK_SECRET_KEY): webhook secrets, stored answers carrying one. */
@Global()
@Module({
  providers: [
    {
      provide: SecretCipher,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => new SecretCipher([config.webhooks.secretKey]),
    },
  ],
  exports: [SecretCipher],
})
export class EncryptionModule {}
