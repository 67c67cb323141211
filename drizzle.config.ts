import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './src/main/service/db/schema.ts',
  out: './src/main/service/db/migrations',
});
