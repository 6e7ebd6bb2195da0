/**
 * File-sending response methods (`res.sendFile`, `res.download`, and the 3.x
 * `res.sendfile`), installed on the response prototype by response/index.ts.
 * Owned by the static-files work; see src/static/.
 */
export const fileMethods: Record<string, (this: any, ...args: any[]) => unknown> = {};
