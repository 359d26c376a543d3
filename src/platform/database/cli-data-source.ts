import { DataSource } from 'typeorm';
import { databaseOptions } from './database-options';

/**
 * For the TypeORM CLI (`npm run migration:run`, `npm run migration:generate`). Needs DATABASE_URL: the
 * embedded database of `npm start` migrates itself at start.
 */
const url = process.env.DATABASE_URL;
if (!url) {
  console.error('Invalid configuration: DATABASE_URL is required for the migration commands');
  process.exit(1);
}

export default new DataSource({
  ...databaseOptions(url),
  entities: [`${__dirname}/../../**/*.entity.js`],
});
