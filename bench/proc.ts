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

/**
 * A process's main thread (its id is the process's): time on a core and time runnable but waiting
 * for one (the kernel's run queue), in ms, from /proc/PID/schedstat (Linux with schedstats); else null.
 */
export function mainThreadSchedMs(pid: number | undefined): { runMs: number; waitMs: number } | null {
  const file = `/proc/${pid}/task/${pid}/schedstat`;
  if (pid === undefined || !existsSync(file)) return null;
  const [run, wait] = readFileSync(file, 'utf8').split(' ');
  return { runMs: Number(run) / 1e6, waitMs: Number(wait) / 1e6 };
}
