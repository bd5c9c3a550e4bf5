/** Link to one workflow run in the Temporal Web UI. */
export function workflowUrl(
  uiUrl: string,
  namespace: string,
  workflowId: string,
  runId?: string,
): string {
  const base = `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${encodeURIComponent(runId)}/history` : base;
}

/** Link to the Web UI's workflow list filtered by a visibility query. */
export function workflowListUrl(uiUrl: string, namespace: string, query: string): string {
  return `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows?query=${encodeURIComponent(query)}`;
}
