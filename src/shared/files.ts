import { z } from 'zod';

/* Files the service makes for the user to save (the reconciliation report, the ledger's export). */

export const ReportFormat = z.enum(['xlsx', 'csv'], { error: 'must be xlsx or csv' });
export type ReportFormat = z.infer<typeof ReportFormat>;

/** A file made for the user to save: its suggested name, type and bytes (base64). */
export const ReportFile = z.object({ file_name: z.string(), mime: z.string(), base64: z.string() });
export type ReportFile = z.infer<typeof ReportFile>;
