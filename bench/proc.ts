import { existsSync, readFileSync } from 'node:fs';

/** CPU time a process has used in user and in system (kernel) mode, every thread, in ms, where /proc tells it (Linux; 10 ms ticks); else null. */
export function processCpuTimes(pid: number | undefined): { user: number; system: number } | null {
  const file = `/proc/${pid}/stat`;
  if (pid === undefined || !existsSync(file)) return null;
  const fields = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
  return { user: (Number(fields[11]) * 1000) / 100, system: (Number(fields[12]) * 1000) / 100 };
}

/** CPU time (user + system, every thread) a process has used, in ms, where /proc tells it (Linux; 10 ms ticks); else null. */
export function processCpuMs(pid: number | undefined): number | null {
  const t = processCpuTimes(pid);
  return t === null ? null : t.user + t.system;
}
