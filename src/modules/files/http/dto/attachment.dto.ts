import { OffsetPageResponse } from '../../../../platform/paging/page-response';
import {
  integer,
  oneOf,
  patterned,
  RequestField,
  ResponseField,
  text,
  timestamp,
  uuid,
} from '../../../../platform/validation/fields';
import { MAX_DESCRIPTION_LENGTH, MAX_FILE_BYTES } from '../../domain/attachment';
import { MAX_FILE_NAME_LENGTH } from '../../domain/file-name';
import { FILE_TYPES } from '../../domain/file-type';

export const ATTACHMENT_DESCRIPTION = text({ min: 0, max: MAX_DESCRIPTION_LENGTH, multiline: true });

/** A stored name (file-name.ts): one path segment, no control characters, never empty. */
const FILE_NAME = patterned({
  // eslint-disable-next-line no-control-regex -- excluding control characters is the point
  pattern: /^[^/\\\u0000-\u001F\u007F-\u009F]+$/,
  max: MAX_FILE_NAME_LENGTH,
  format: 'file name',
  example: 'invoice.pdf',
});

/** The text parts of an attachment upload (the file part is read apart, as a stream). */
export class AttachmentUploadFields {
  @RequestField(ATTACHMENT_DESCRIPTION, { presence: 'optional' })
  description?: string;
}

/** An avatar upload has no text parts: any is UNKNOWN_FIELD. */
export class AvatarUploadFields {}

/** An attachment of an order, with `description` when one was given. */
export class AttachmentResponse {
  @ResponseField(uuid())
  attachmentId: string;

  @ResponseField(FILE_NAME, { description: 'The uploaded name, without any path and control characters.' })
  fileName: string;

  @ResponseField(oneOf(FILE_TYPES, 'FileType'), {
    description: 'The type of the file as decided from its content.',
  })
  contentType: string;

  @ResponseField(integer({ min: 0, max: MAX_FILE_BYTES }), { description: 'Size in bytes.' })
  size: number;

  @ResponseField(ATTACHMENT_DESCRIPTION, { optional: true })
  description?: string;

  @ResponseField(timestamp())
  uploadedAt: Date;
}

export const AttachmentPageResponse = OffsetPageResponse(AttachmentResponse, 'AttachmentPageResponse');
