import { Get, HttpCode, Module, Post, StreamableFile } from '@nestjs/common';
import { Readable } from 'node:stream';
import { VersionedController } from '../../../src/platform/versioning/api-version';

export const JSON_PROBE_PATH = '/api/v1/json-output-probe';
export const SAMPLE_INSTANT = new Date('2025-03-04T05:06:07.891Z');

/** A response DTO as a class instance, the way views hand them over. */
class SampleLine {
  constructor(
    readonly lineId: string,
    readonly comment: string | null,
    readonly shippedAt?: Date,
  ) {}
}

/** Everything the output rules touch, at several depths. */
function sample(): Record<string, unknown> {
  return {
    sampleId: 'a1',
    nothing: null,
    missing: undefined,
    blank: '',
    zero: 0,
    no: false,
    space: ' ',
    createdAt: SAMPLE_INSTANT,
    tags: [],
    nested: {
      keep: 'x',
      drop: null,
      blank: '',
      when: SAMPLE_INSTANT,
      deeper: { gone: undefined, items: [] },
    },
    lines: [new SampleLine('l1', null, SAMPLE_INSTANT), new SampleLine('l2', 'fragile')],
    matrix: [[SAMPLE_INSTANT], [{ a: 1, b: null }]],
  };
}

/** Test-only routes under /api/v1/json-output-probe returning raw handler values. */
@VersionedController('json-output-probe', 1)
class JsonOutputProbeController {
  @Get('sample')
  read(): Record<string, unknown> {
    return sample();
  }

  @Post('sample')
  @HttpCode(201)
  create(): Record<string, unknown> {
    return sample();
  }

  @Get('list')
  list(): unknown[] {
    return [];
  }

  @Get('file')
  file(): StreamableFile {
    return new StreamableFile(Readable.from([Buffer.from('{"raw": null, "blank": ""}')]), {
      type: 'application/octet-stream',
    });
  }
}

@Module({ controllers: [JsonOutputProbeController] })
export class JsonOutputProbeModule {}
