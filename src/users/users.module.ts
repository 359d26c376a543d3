import { Global, Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JustInTimeUserInterceptor } from './just-in-time-user.interceptor';
import { UserEntity } from './user.entity';
import { UsersController } from './users.controller';
import { UsersService } from './users.service';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([UserEntity])],
  controllers: [UsersController],
  providers: [UsersService, { provide: APP_INTERCEPTOR, useClass: JustInTimeUserInterceptor }],
  exports: [UsersService],
})
export class UsersModule {}
