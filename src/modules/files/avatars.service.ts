import { Injectable } from '@nestjs/common';
import { type Caller, isAdmin } from '../../platform/auth/caller';
import { AppException } from '../../platform/problem/app-exception';
import { BlobStorage } from '../../platform/storage/blob-storage';
import { UsersService } from '../users/users.service';
import type { Attachment, AttachmentContent, ReceivedFile } from './domain/attachment';
import { FileUploadsService } from './file-uploads.service';
import { AttachmentsRepository } from './persistence/attachments.repository';
import { Transactions } from '../../platform/database/transactions';

const noAvatar = () =>
  new AppException('ATTACHMENT_NOT_FOUND', { detailKey: 'errors.ATTACHMENT_NOT_FOUND_AVATAR' });

/**
 * Users' avatars: at most one per user. A user replaces and deletes their own; a user reads their own, an
 * admin anyone's.
 */
@Injectable()
export class AvatarsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly attachments: AttachmentsRepository,
    private readonly storage: BlobStorage,
    private readonly uploads: FileUploadsService,
    private readonly users: UsersService,
  ) {}

  /**
   * Makes the received file the caller's avatar. An earlier avatar and its bytes are deleted in the same
   * transaction; uploads of one user at once are serialized, so exactly one avatar remains.
   */
  async replace(caller: Caller, file: ReceivedFile): Promise<Attachment> {
    try {
      return await this.transactions.run(async (tx) => {
        await this.attachments.lockAvatar(tx, caller.userId);
        const earlier = await this.attachments.deleteAvatar(tx, caller.userId);
        if (earlier !== undefined) await this.storage.delete(tx, [earlier]);
        const avatar = await this.attachments.insert(tx, { avatarOf: caller.userId }, file, {
          uploadedBy: caller.userId,
        });
        await this.storage.attach(tx, file.blobKey);
        return avatar;
      });
    } catch (error: unknown) {
      await this.uploads.discard(file);
      throw error;
    }
  }

  /** A user's avatar with its bytes: the user themself or an admin (else 403). */
  async open(caller: Caller, userId: string): Promise<AttachmentContent> {
    if (userId !== caller.userId && !isAdmin(caller)) throw new AppException('ACCESS_DENIED');
    const attachment = await this.attachments.findAvatar(userId);
    const content = attachment && (await this.storage.open(attachment.blobKey));
    if (!attachment || !content) {
      // An admin asking for someone unknown learns that, rather than "no avatar".
      if (userId !== caller.userId) await this.users.get(userId);
      throw noAvatar();
    }
    return { attachment, content };
  }

  /** Deletes the caller's avatar with its bytes; 404 when there is none. */
  async remove(caller: Caller): Promise<void> {
    await this.transactions.run(async (tx) => {
      await this.attachments.lockAvatar(tx, caller.userId);
      const blobKey = await this.attachments.deleteAvatar(tx, caller.userId);
      if (blobKey === undefined) throw noAvatar();
      await this.storage.delete(tx, [blobKey]);
    });
  }
}
