import { defineConfig } from 'drizzle-kit';

/* The store's PostgreSQL migrations (team mode, docs/team.md): `npm run db:generate:pg`. */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/main/service/db/schema-pg.ts',
  out: './src/main/service/db/migrations-pg',
});
