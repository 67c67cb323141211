import { existsSync, readFileSync } from 'node:fs';

/** CPU time (user + system, every thread) a process has used, in ms, where /proc tells it (Linux; 10 ms ticks); else null. */
export function processCpuMs(pid: number | undefined): number | null {
  const file = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(file)) return null;
  const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
