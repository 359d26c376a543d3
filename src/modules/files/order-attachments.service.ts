import { Injectable, OnModuleInit } from '@nestjs/common';
import type { Caller } from '../../platform/auth/caller';
import { OrderDeletionHooks } from '../orders/order-deletion-hooks';
import { OrderReadsService } from '../orders/order-reads.service';
import { OffsetPage, offsetOf, offsetPage } from '../../platform/paging/offset-page';
import { AppException } from '../../platform/problem/app-exception';
import { BlobStorage } from '../../platform/storage/blob-storage';
import type { Attachment, AttachmentContent, ReceivedFile } from './domain/attachment';
import { FileUploadsService } from './file-uploads.service';
import { AttachmentsRepository, isMissingOwner } from './persistence/attachments.repository';
import { Transactions, type Tx } from '../../platform/database/transactions';

/**
 * The files attached to an order. Whoever may see the order (its customer, an admin) may list, add, read
 * and delete its attachments, in any state of the order. Deleting an order deletes its attachments and
 * their bytes in the same transaction (a hook registered with the orders module).
 */
@Injectable()
export class OrderAttachmentsService implements OnModuleInit {
  constructor(
    private readonly transactions: Transactions,
    private readonly attachments: AttachmentsRepository,
    private readonly storage: BlobStorage,
    private readonly uploads: FileUploadsService,
    private readonly orders: OrderReadsService,
    private readonly orderDeletion: OrderDeletionHooks,
  ) {}

  onModuleInit(): void {
    this.orderDeletion.register((tx, orderId) => this.removeAllOf(tx, orderId));
  }

  /** 404 ORDER_NOT_FOUND or 403 ACCESS_DENIED unless the caller may attach files to the order. */
  async assertAttachable(caller: Caller, orderId: string): Promise<void> {
    await this.orders.assertVisible(caller, orderId);
  }

  /**
   * Attaches a received file to the order (checked with `assertAttachable` before the upload was read):
   * its metadata and the storage's attach in one transaction. An order deleted meanwhile is 404, and the
   * file is given back.
   */
  async attach(
    caller: Caller,
    orderId: string,
    file: ReceivedFile,
    description?: string,
  ): Promise<Attachment> {
    try {
      return await this.transactions.run(async (tx) => {
        const attachment = await this.attachments.insert(tx, { orderId }, file, {
          description,
          uploadedBy: caller.userId,
        });
        await this.storage.attach(tx, file.blobKey);
        return attachment;
      });
    } catch (error: unknown) {
      await this.uploads.discard(file);
      if (isMissingOwner(error)) throw new AppException('ORDER_NOT_FOUND', { args: { orderId } });
      throw error;
    }
  }

  async list(
    caller: Caller,
    orderId: string,
    paging: { page: number; size: number },
  ): Promise<OffsetPage<Attachment>> {
    await this.orders.assertVisible(caller, orderId);
    const { attachments, total } = await this.attachments.orderPage(orderId, {
      limit: paging.size,
      offset: offsetOf(paging),
    });
    return offsetPage(attachments, total, paging);
  }

  async open(caller: Caller, orderId: string, attachmentId: string): Promise<AttachmentContent> {
    await this.orders.assertVisible(caller, orderId);
    const attachment = await this.attachments.findOfOrder(orderId, attachmentId);
    // Deleted between the two reads: as unknown as if it never existed.
    const content = attachment && (await this.storage.open(attachment.blobKey));
    if (!attachment || !content) throw new AppException('ATTACHMENT_NOT_FOUND', { args: { attachmentId } });
    return { attachment, content };
  }

  /** Deletes the attachment with its bytes. */
  async remove(caller: Caller, orderId: string, attachmentId: string): Promise<void> {
    await this.orders.assertVisible(caller, orderId);
    await this.transactions.run(async (tx) => {
      const blobKey = await this.attachments.deleteOfOrder(tx, orderId, attachmentId);
      if (blobKey === undefined) throw new AppException('ATTACHMENT_NOT_FOUND', { args: { attachmentId } });
      await this.storage.delete(tx, [blobKey]);
    });
  }

  /** The order deletion hook: every attachment of the order and its bytes, in the deleting transaction. */
  private async removeAllOf(tx: Tx, orderId: string): Promise<void> {
    await this.storage.delete(tx, await this.attachments.deleteAllOfOrder(tx, orderId));
  }
}
