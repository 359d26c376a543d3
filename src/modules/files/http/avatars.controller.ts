import { Get, HttpCode, Req, Res, StreamableFile } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Caller } from '../../../platform/auth/caller';
import { CurrentCaller } from '../../../platform/auth/decorators';
import { AliasRoute } from '../../../platform/http/alias-route';
import { IdempotencyKeyRefused } from '../../../platform/idempotency/idempotency-key-refused.decorator';
import {
  ApiEndpoint,
  ApiMultipartFile,
  locationHeader,
} from '../../../platform/openapi/api-endpoint.decorator';
import { MultipartBody } from '../../../platform/validation/multipart-body';
import { UuidParam } from '../../../platform/validation/uuid-param.decorator';
import { VersionedController } from '../../../platform/versioning/api-version';
import { AVATAR_UPLOADS } from '../domain/attachment';
import { AvatarsService } from '../avatars.service';
import { FileUploadsService } from '../file-uploads.service';
import { fileDownload, fileDownloadDocs, toAttachmentResponse } from './attachment.view';
import { AttachmentResponse } from './dto/attachment.dto';
import { AVATAR_FORM, FILE_PART, readUpload } from './upload-forms';

const DOWNLOAD = fileDownloadDocs(AVATAR_UPLOADS);

/**
 * Avatars, a singleton of each user: `/users/me/avatar` for the caller's own (the literal route wins over
 * `{userId}`), `/users/{userId}/avatar` to read anyone's as an admin.
 */
@ApiTags('Users')
@VersionedController('users', 1)
export class AvatarsController {
  constructor(
    private readonly avatars: AvatarsService,
    private readonly uploads: FileUploadsService,
  ) {}

  @AliasRoute('POST', 'me/avatar')
  @HttpCode(201)
  @MultipartBody()
  @IdempotencyKeyRefused()
  @ApiMultipartFile({
    field: FILE_PART,
    maxBytes: AVATAR_UPLOADS.maxBytes,
    allowedTypes: AVATAR_UPLOADS.allowedTypes,
    description: 'The picture',
  })
  @ApiEndpoint({
    operationId: 'uploadCurrentUserAvatar',
    summary: "Upload the caller's avatar, replacing any earlier one",
    description:
      'PNG or JPEG, decided by the file’s first bytes. The earlier avatar and its bytes are deleted. ' +
      '`Idempotency-Key` is refused (400): a streamed upload has no body to fingerprint before it is stored.',
    errors: ['FILE_TOO_LARGE', 'UNSUPPORTED_FILE_TYPE', 'UNSUPPORTED_MEDIA_TYPE'],
    headers: locationHeader('the avatar', '/api/v1/users/{userId}/avatar'),
    type: AttachmentResponse,
    successStatus: 201,
  })
  async upload(
    @CurrentCaller() caller: Caller,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<AttachmentResponse> {
    const { file } = await readUpload(request, AVATAR_FORM, AVATAR_UPLOADS, this.uploads);
    const avatar = await this.avatars.replace(caller, file);
    void reply.header('location', `/api/v1/users/${caller.userId}/avatar`);
    return toAttachmentResponse(avatar);
  }

  @AliasRoute('GET', 'me/avatar')
  @ApiEndpoint({
    operationId: 'downloadCurrentUserAvatar',
    summary: "Download the caller's avatar",
    errors: ['ATTACHMENT_NOT_FOUND'],
    ...DOWNLOAD,
  })
  async downloadOwn(@CurrentCaller() caller: Caller): Promise<StreamableFile> {
    return fileDownload(await this.avatars.open(caller, caller.userId));
  }

  @AliasRoute('DELETE', 'me/avatar')
  @HttpCode(204)
  @ApiEndpoint({
    operationId: 'deleteCurrentUserAvatar',
    summary: "Delete the caller's avatar",
    errors: ['ATTACHMENT_NOT_FOUND'],
    successStatus: 204,
  })
  async remove(@CurrentCaller() caller: Caller): Promise<void> {
    await this.avatars.remove(caller);
  }

  @Get(':userId/avatar')
  @ApiEndpoint({
    operationId: 'downloadUserAvatar',
    summary: "Download a user's avatar (admin, or the user themself)",
    description: 'Administrators may read any avatar; other callers only their own (else 403 ACCESS_DENIED).',
    errors: ['ACCESS_DENIED', 'USER_NOT_FOUND', 'ATTACHMENT_NOT_FOUND'],
    ...DOWNLOAD,
  })
  async download(
    @CurrentCaller() caller: Caller,
    @UuidParam('userId') userId: string,
  ): Promise<StreamableFile> {
    return fileDownload(await this.avatars.open(caller, userId));
  }
}
