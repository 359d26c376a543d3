import type { FastifyRequest } from 'fastify';
import type { MultipartFormSpec } from '../../../platform/validation/multipart-body';
import { readMultipartForm } from '../../../platform/validation/multipart-body';
import { ATTACHMENT_UPLOADS, AVATAR_UPLOADS, ReceivedFile, UploadPolicy } from '../domain/attachment';
import type { FileUploadsService } from '../file-uploads.service';
import { AttachmentUploadFields, AvatarUploadFields } from './dto/attachment.dto';

/** The part holding the file, in every upload form. */
export const FILE_PART = 'file';

/** `POST /orders/{orderId}/attachments`: part `file`, optional part `description`. */
export const ATTACHMENT_FORM: MultipartFormSpec<AttachmentUploadFields> = {
  file: { name: FILE_PART, maxBytes: ATTACHMENT_UPLOADS.maxBytes },
  fields: AttachmentUploadFields,
};

/** `POST /users/me/avatar`: part `file` only. */
export const AVATAR_FORM: MultipartFormSpec<AvatarUploadFields> = {
  file: { name: FILE_PART, maxBytes: AVATAR_UPLOADS.maxBytes },
  fields: AvatarUploadFields,
};

/** Reads an upload form, its file received (typed, capped, stored pending) under `policy`. */
export function readUpload<F extends object>(
  request: FastifyRequest,
  form: MultipartFormSpec<F>,
  policy: UploadPolicy,
  uploads: FileUploadsService,
): Promise<{ file: ReceivedFile; fields: F }> {
  return readMultipartForm(
    request,
    form,
    (part) => uploads.receive(part, policy),
    (file) => uploads.discard(file),
  );
}
