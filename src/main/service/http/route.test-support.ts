import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { tempService } from '../test-support';
import { strictAnswers } from './answers.test-support';
import { buildServer } from './server';

/** For a route test file: a fresh service and its Fastify app, ready before the tests, gone after. */
export function routeTestApp(): { app: () => FastifyInstance; service: () => ReturnType<typeof tempService> } {
  let service: ReturnType<typeof tempService>;
  let app: FastifyInstance;
  beforeAll(async () => {
    service = tempService();
    app = buildServer(service);
    strictAnswers(app);
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    service.dispose();
  });
  return { app: () => app, service: () => service };
}
