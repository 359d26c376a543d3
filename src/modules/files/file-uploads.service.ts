import { Injectable, Logger } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { AppException } from '../../platform/problem/app-exception';
import { formatByteSize } from '../../platform/problem/byte-size';
import { BlobStorage, BlobTooLargeError } from '../../platform/storage/blob-storage';
import type { ReceivedFile, UploadPolicy } from './domain/attachment';
import { normalizeFileName } from './domain/file-name';
import { checkFileType, declaredMediaType, FILE_EXTENSIONS, SIGNATURE_BYTES } from './domain/file-type';
import { readHead } from './domain/stream-head';
import { Transactions } from '../../platform/database/transactions';

/** An upload as it arrives: its bytes as a stream, with the name and type the client gave it. */
export interface IncomingFile {
  stream: Readable;
  fileName?: string;
  contentType?: string;
}

/**
 * Receiving uploaded bytes, for every kind of file (attachments, avatars): typed by their first bytes,
 * capped while they stream into storage. What it returns is stored but pending; the caller attaches it in
 * the transaction that stores its metadata, or gives it back with `discard`.
 */
@Injectable()
export class FileUploadsService {
  private readonly logger = new Logger('FileUploads');

  constructor(
    private readonly storage: BlobStorage,
    private readonly transactions: Transactions,
  ) {}

  /**
   * Refuses (415 UNSUPPORTED_FILE_TYPE) a file whose first bytes are not a type `policy` allows, or not the
   * type the client declared, before anything is stored; then streams it into storage, refusing (413
   * FILE_TOO_LARGE) as soon as it passes `policy.maxBytes`, with nothing kept. The rest of a refused upload
   * is never read: its stream is destroyed.
   */
  async receive(file: IncomingFile, policy: UploadPolicy): Promise<ReceivedFile> {
    const { head, whole } = await readHead(file.stream, SIGNATURE_BYTES);
    const declaredType = declaredMediaType(file.contentType);
    const type = checkFileType(head, declaredType, policy.allowedTypes);
    if (!type.accepted) {
      file.stream.destroy();
      throw type.reason === 'MISMATCH'
        ? new AppException('UNSUPPORTED_FILE_TYPE', {
            detailKey: 'errors.UNSUPPORTED_FILE_TYPE_MISMATCH',
            args: { detected: type.detected },
          })
        : new AppException('UNSUPPORTED_FILE_TYPE', { args: { allowed: policy.allowedTypes.join(', ') } });
    }
    try {
      const stored = await this.storage.write(whole, { maxBytes: policy.maxBytes });
      return {
        blobKey: stored.key,
        fileName: normalizeFileName(file.fileName, FILE_EXTENSIONS[type.type]),
        contentType: type.type,
        ...(declaredType !== undefined ? { declaredType } : {}),
        size: stored.size,
        sha256: stored.sha256,
      };
    } catch (error: unknown) {
      if (error instanceof BlobTooLargeError) {
        throw new AppException('FILE_TOO_LARGE', { args: { max: formatByteSize(policy.maxBytes) } });
      }
      throw error;
    }
  }

  /**
   * Removes a received file that will not be attached (its request failed afterwards). Never fails: a file
   * left behind is pending and purged by storage within the hour anyway.
   */
  async discard(file: ReceivedFile): Promise<void> {
    try {
      // Its own transaction: the request around it is failing, and its transaction (if it began one) is
      // rolled back or about to be.
      await this.transactions.runAlone((tx) => this.storage.delete(tx, [file.blobKey]));
    } catch (error: unknown) {
      this.logger.warn({ msg: 'received file not discarded; storage purges it later', err: error });
    }
  }
}
