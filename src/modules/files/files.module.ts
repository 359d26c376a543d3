import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OrdersModule } from '../orders/orders.module';
import { AvatarsService } from './avatars.service';
import { FileUploadsService } from './file-uploads.service';
import { AvatarsController } from './http/avatars.controller';
import { OrderAttachmentsController } from './http/order-attachments.controller';
import { OrderAttachmentsService } from './order-attachments.service';
import { AttachmentEntity } from './persistence/attachment.entity';
import { AttachmentsRepository } from './persistence/attachments.repository';

/**
 * Files: order attachments and user avatars. Uploads are typed by their bytes (domain/) and capped while
 * they stream into the storage port (src/platform/storage/); the metadata is this module's `attachments` table
 * (persistence/). Orders are read through OrderReadsService, and an order's deletion removes its
 * attachments through the orders module's deletion hooks.
 */
@Module({
  // The entity describes the table for `npm run migration:generate`; statements live in the repository.
  imports: [TypeOrmModule.forFeature([AttachmentEntity]), OrdersModule],
  controllers: [OrderAttachmentsController, AvatarsController],
  providers: [AttachmentsRepository, FileUploadsService, OrderAttachmentsService, AvatarsService],
})
export class FilesModule {}
