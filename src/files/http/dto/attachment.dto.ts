import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { OffsetPageResponse } from '../../../paging/page-response';
import { MAX_DESCRIPTION_LENGTH } from '../../domain/attachment';
import { MAX_FILE_NAME_LENGTH } from '../../domain/file-name';

/** The text parts of an attachment upload (the file part is read apart, as a stream). */
export class AttachmentUploadFields {
  @IsOptional()
  @IsString()
  @MaxLength(MAX_DESCRIPTION_LENGTH)
  description?: string;
}

/** An avatar upload has no text parts: any is UNKNOWN_FIELD. */
export class AvatarUploadFields {}

/** The Attachment of the contract (Resources: Attachment), plus `description` when one was given. */
export class AttachmentResponse {
  @ApiProperty({ format: 'uuid' })
  attachmentId: string;

  @ApiProperty({
    maxLength: MAX_FILE_NAME_LENGTH,
    example: 'invoice.pdf',
    description: 'The uploaded name, without any path and control characters.',
  })
  fileName: string;

  @ApiProperty({
    example: 'application/pdf',
    description:
      'The type of the file as decided from its content: application/pdf, image/png or image/jpeg.',
  })
  contentType: string;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Size in bytes.' })
  size: number;

  @ApiPropertyOptional({ maxLength: MAX_DESCRIPTION_LENGTH })
  description?: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-31T12:00:00Z' })
  uploadedAt: Date;
}

export const AttachmentPageResponse = OffsetPageResponse(AttachmentResponse, 'AttachmentPageResponse');
