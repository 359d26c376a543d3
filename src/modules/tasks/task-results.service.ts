import { Injectable } from '@nestjs/common';
import type { Readable } from 'node:stream';
import { type Caller, isAdmin } from '../../platform/auth/caller';
import { AppException } from '../../platform/problem/app-exception';
import { BlobStorage } from '../../platform/storage/blob-storage';
import { StoredExport, StoredReport, TasksRepository } from './persistence/tasks.repository';

/** The results tasks produce, for their owner or an admin; anyone else gets 404, as for an unknown one. */
@Injectable()
export class TaskResultsService {
  constructor(
    private readonly tasks: TasksRepository,
    private readonly storage: BlobStorage,
  ) {}

  async report(caller: Caller, reportId: string): Promise<StoredReport> {
    const report = await this.tasks.readReport(reportId);
    if (!report || !mayRead(caller, report.ownerId)) {
      throw new AppException('REPORT_NOT_FOUND', { args: { reportId } });
    }
    return report;
  }

  async export(caller: Caller, exportId: string): Promise<{ file: StoredExport; content: Readable }> {
    const file = await this.tasks.readExport(exportId);
    if (!file || !mayRead(caller, file.ownerId)) {
      throw new AppException('EXPORT_NOT_FOUND', { args: { exportId } });
    }
    const content = await this.storage.open(file.blobKey);
    // An export row always has its bytes (they are attached in the same transaction): this is a bug.
    if (!content) throw new Error(`export ${exportId} has no stored file`);
    return { file, content };
  }
}

function mayRead(caller: Caller, ownerId: string): boolean {
  return ownerId === caller.userId || isAdmin(caller);
}
