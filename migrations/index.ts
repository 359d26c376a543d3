import { MigrationInterface } from 'typeorm';
import { Init1763800000000 } from './1763800000000-init';

/** Every migration, in order. Listed explicitly so the same list works from src (ts-jest) and dist. */
export const migrations: Array<new () => MigrationInterface> = [Init1763800000000];
