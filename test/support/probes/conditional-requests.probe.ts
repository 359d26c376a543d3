import { Body, Get, Module, Param, Patch, Req, Res } from '@nestjs/common';
import { InjectRepository, TypeOrmModule } from '@nestjs/typeorm';
import { IsString, MaxLength } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Column, Entity, PrimaryColumn, Repository } from 'typeorm';
import { entityTag, ifMatchVersions } from '../../../src/platform/http/conditional-requests';
import { AppException } from '../../../src/platform/problem/app-exception';
import { VersionedController } from '../../../src/platform/versioning/api-version';

export const CONDITIONAL_PROBE_PATH = '/api/v1/conditional-probe/documents';

/** Created by the test (raw SQL), not by a migration: the probe's table exists only in test runs. */
export const PROBE_DOCUMENTS_TABLE_SQL = `
  CREATE TABLE IF NOT EXISTS conditional_probe_documents (
    document_id uuid PRIMARY KEY,
    title text NOT NULL,
    version integer NOT NULL DEFAULT 1
  )`;

@Entity({ name: 'conditional_probe_documents' })
export class ProbeDocumentEntity {
  @PrimaryColumn('uuid', { name: 'document_id' })
  documentId: string;

  @Column('text')
  title: string;

  @Column('integer')
  version: number;
}

class RetitleBody {
  @IsString()
  @MaxLength(100)
  title: string;
}

/** Test-only routes under /api/v1/conditional-probe that use the conditional-request helpers as a controller would. */
@VersionedController('conditional-probe/documents', 1)
class ConditionalProbeController {
  constructor(
    @InjectRepository(ProbeDocumentEntity) private readonly documents: Repository<ProbeDocumentEntity>,
  ) {}

  /** Sets ETag only: the 304 for a matching If-None-Match is the mechanism's. */
  @Get(':documentId')
  async get(
    @Param('documentId') documentId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProbeDocumentEntity> {
    const document = await this.find(documentId);
    void reply.header('etag', entityTag(document.documentId, document.version));
    void reply.header('cache-control', 'private, no-cache');
    return document;
  }

  /** Read, check If-Match against the version read, write the next version. */
  @Patch(':documentId')
  async retitle(
    @Param('documentId') documentId: string,
    @Body() body: RetitleBody,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProbeDocumentEntity> {
    const document = await this.find(documentId);
    const expected = ifMatchVersions(request, documentId);
    if (expected && !expected.includes(document.version)) throw new AppException('CONCURRENT_MODIFICATION');
    const version = document.version + 1;
    await this.documents.update({ documentId }, { title: body.title, version });
    void reply.header('etag', entityTag(documentId, version));
    return { documentId, title: body.title, version };
  }

  private async find(documentId: string): Promise<ProbeDocumentEntity> {
    const document = await this.documents.findOneBy({ documentId });
    if (!document) throw new AppException('RESOURCE_NOT_FOUND');
    return document;
  }
}

@Module({
  imports: [TypeOrmModule.forFeature([ProbeDocumentEntity])],
  controllers: [ConditionalProbeController],
})
export class ConditionalRequestsProbeModule {}
