/** The floor's activity: does nothing, so only Temporal's own cost is measured. */
export async function noop(): Promise<void> {}
