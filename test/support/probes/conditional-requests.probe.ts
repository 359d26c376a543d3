import { Body, Controller, Get, Injectable, Module, Param, Patch, Req, Res } from '@nestjs/common';
import { InjectRepository, TypeOrmModule } from '@nestjs/typeorm';
import { IsString, MaxLength } from 'class-validator';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Column, Entity, PrimaryColumn, Repository, VersionColumn } from 'typeorm';
import { assertIfMatch, entityTag } from '../../../src/http/conditional-requests';
import { updateVersioned } from '../../../src/http/versioned-update';
import { AppException } from '../../../src/problem/app-exception';

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

  @VersionColumn()
  version: number;
}

class RetitleBody {
  @IsString()
  @MaxLength(100)
  title: string;
}

/**
 * Holds writers after they have read until `parties` of them have: two concurrent writers then both hold
 * the same version when they write, and only the versioned update can tell them apart.
 */
@Injectable()
export class ProbeBarrier {
  private parties = 0;
  private arrived = 0;
  private release?: () => void;
  private all: Promise<void> = Promise.resolve();

  arm(parties: number): void {
    this.parties = parties;
    this.arrived = 0;
    this.all = new Promise((resolve) => (this.release = resolve));
  }

  async wait(): Promise<void> {
    if (this.parties === 0) return;
    this.arrived += 1;
    if (this.arrived === this.parties) {
      this.parties = 0;
      this.release?.();
    }
    await this.all;
  }
}

/** Test-only routes under /api/v1/conditional-probe that use the conditional-request helpers as a controller would. */
@Controller({ path: 'conditional-probe/documents', version: '1' })
class ConditionalProbeController {
  constructor(
    @InjectRepository(ProbeDocumentEntity) private readonly documents: Repository<ProbeDocumentEntity>,
    private readonly barrier: ProbeBarrier,
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

  /** Read, check If-Match against what was read, then a compare-and-set on the version. */
  @Patch(':documentId')
  async retitle(
    @Param('documentId') documentId: string,
    @Body() body: RetitleBody,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ProbeDocumentEntity> {
    const document = await this.find(documentId);
    assertIfMatch(request, entityTag(document.documentId, document.version));
    await this.barrier.wait();
    const version = await updateVersioned(
      this.documents.manager,
      ProbeDocumentEntity,
      { documentId },
      document.version,
      { title: body.title },
    );
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
  providers: [ProbeBarrier],
})
export class ConditionalRequestsProbeModule {}
