import { StreamableFile } from '@nestjs/common';
import { binarySchema, fileDownloadHeaders } from '../../../platform/openapi/api-endpoint.decorator';
import type { Attachment, AttachmentContent, UploadPolicy } from '../domain/attachment';
import { attachmentDisposition, maxDispositionLength } from '../domain/content-disposition';
import { MAX_FILE_NAME_LENGTH } from '../domain/file-name';
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

/** How `@ApiEndpoint` declares a download of files uploaded under `policy`: its types, size and headers. */
export function fileDownloadDocs(policy: UploadPolicy) {
  return {
    schema: binarySchema(policy.maxBytes),
    contentTypes: policy.allowedTypes,
    headers: fileDownloadHeaders({
      maxBytes: policy.maxBytes,
      maxDispositionLength: maxDispositionLength(MAX_FILE_NAME_LENGTH),
    }),
  };
}
