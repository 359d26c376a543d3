import { Global, Module } from '@nestjs/common';
import { BlobStorage } from './blob-storage';
import { PostgresBlobStorage } from './postgres-blob-storage';

/** File bytes behind the storage port (blob-storage.ts); PostgreSQL is the adapter until an object store is configured. */
@Global()
@Module({
  providers: [{ provide: BlobStorage, useClass: PostgresBlobStorage }],
  exports: [BlobStorage],
})
export class StorageModule {}
