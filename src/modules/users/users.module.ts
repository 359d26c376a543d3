import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LanguagePreference } from '../../platform/problem/language-preference';
import { UserSettingsController } from './http/user-settings.controller';
import { JustInTimeUserGuard } from './http/just-in-time-user.guard';
import { UsersController } from './http/users.controller';
import { UserEntity } from './persistence/user.entity';
import { UserSettingsEntity } from './persistence/user-settings.entity';
import { UserSettingsRepository } from './persistence/user-settings.repository';
import { UsersRepository } from './persistence/users.repository';
import { StoredLanguagePreference } from './stored-language-preference.service';
import { UsersService } from './users.service';
import { UserSettingsService } from './user-settings.service';

/**
 * Users: profiles (created just in time), their settings, and the stored language behind the
 * `LanguagePreference` port of src/platform/problem (exported: global, so the problem module finds it).
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([UserEntity, UserSettingsEntity])],
  controllers: [UsersController, UserSettingsController],
  providers: [
    UsersRepository,
    UsersService,
    UserSettingsRepository,
    UserSettingsService,
    { provide: LanguagePreference, useClass: StoredLanguagePreference },
    { provide: APP_GUARD, useClass: JustInTimeUserGuard },
  ],
  exports: [UsersService, LanguagePreference],
})
export class UsersModule {}
