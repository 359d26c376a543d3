import { Module } from '@nestjs/common';
import { BatchResults } from './batch-results';

/**
 * The batch mechanism: request DTOs with the size limit (`BatchRequestOf`),
 * item outcomes (`settleEach`, `AtomicBatchFailure`), and `BatchResults`, which builds the 200 body or the
 * BATCH_TRANSACTION_FAILED problem. Import it into the module of a batch endpoint.
 */
@Module({
  providers: [BatchResults],
  exports: [BatchResults],
})
export class BatchModule {}
