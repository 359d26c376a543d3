import { StreamableFile } from '@nestjs/common';
import type { Attachment, AttachmentContent } from '../domain/attachment';
import { attachmentDisposition } from '../domain/content-disposition';
import { AttachmentResponse } from './dto/attachment.dto';

export function toAttachmentResponse(attachment: Attachment): AttachmentResponse {
  return {
    attachmentId: attachment.attachmentId,
    fileName: attachment.fileName,
    contentType: attachment.contentType,
    size: attachment.size,
    description: attachment.description,
    uploadedAt: attachment.uploadedAt,
  };
}

/**
 * A file download: its bytes streamed from storage with `Content-Type` (the type decided at upload),
 * `Content-Length` and `Content-Disposition: attachment` under its name (safe for any name).
 */
export function fileDownload({ attachment, content }: AttachmentContent): StreamableFile {
  return new StreamableFile(content, {
    type: attachment.contentType,
    length: attachment.size,
    disposition: attachmentDisposition(attachment.fileName),
  });
}
