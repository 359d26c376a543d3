import { Module } from '@nestjs/common';

/** Bearer authentication (global guard), roles, the typed caller. */
@Module({})
export class AuthModule {}
