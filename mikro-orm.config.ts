// Used by the MikroORM CLI only (`npm run migration:create`); the processes build their config in src/database.ts.
import { ormConfig } from './src/database.ts';

export default ormConfig(process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/pix_dev', {
  pool: { min: 0, max: 2 },
});
