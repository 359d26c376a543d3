import { Refusal } from '../../logging/app-logger';

/** A start-up problem of the embedded database, said in one line with the way out. */
export class EmbeddedDatabaseError extends Refusal {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedDatabaseError';
  }
}
