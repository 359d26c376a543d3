import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsModule } from '../events/events.module';
import { OrdersModule } from '../orders/orders.module';
import { CustomerExportProcessor } from './customer-export.processor';
import { CustomerExportsController, ExportsController } from './http/exports.controller';
import { ReportsController } from './http/reports.controller';
import { TasksController } from './http/tasks.controller';
import { ExportEntity } from './persistence/export.entity';
import { ReportEntity } from './persistence/report.entity';
import { TaskEntity } from './persistence/task.entity';
import { TasksRepository } from './persistence/tasks.repository';
import { ReportGenerationProcessor } from './report-generation.processor';
import { TaskDispatcher } from './task-dispatcher.service';
import { TaskEndings } from './task-endings.service';
import { TaskHandlers } from './task-handlers';
import { TaskMaintenance } from './task-maintenance.service';
import { TaskResultsService } from './task-results.service';
import { TaskRunner } from './task-runner.service';
import { TasksService } from './tasks.service';

/**
 * Long-running tasks: report generation and customer exports. HTTP starts them (202) and serves their
 * status and results; processors (one per type, on the job-queue port) run them in the `worker` and `all`
 * roles; maintenance jobs reconcile, expire and clean up.
 */
@Module({
  imports: [TypeOrmModule.forFeature([TaskEntity, ReportEntity, ExportEntity]), OrdersModule, EventsModule],
  controllers: [TasksController, ReportsController, CustomerExportsController, ExportsController],
  providers: [
    TasksRepository,
    TaskHandlers,
    TaskDispatcher,
    TaskEndings,
    TasksService,
    TaskResultsService,
    TaskRunner,
    TaskMaintenance,
    ReportGenerationProcessor,
    CustomerExportProcessor,
  ],
  exports: [TaskHandlers, TaskMaintenance],
})
export class TasksModule {}
