/**
 * The UI's base URL without user info: links are printed and pasted, so credentials in
 * TEMPORAL_UI_URL must not travel with them (the browser asks for them instead).
 */
function baseOf(uiUrl: string): string {
  return uiUrl.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1');
}

/** Link to one workflow run in the Temporal Web UI. */
export function workflowUrl(
  uiUrl: string,
  namespace: string,
  workflowId: string,
  runId?: string,
): string {
  const base = `${baseOf(uiUrl)}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return runId ? `${base}/${encodeURIComponent(runId)}/history` : base;
}

/** Link to the Web UI's workflow list filtered by a visibility query. */
export function workflowListUrl(uiUrl: string, namespace: string, query: string): string {
  return `${baseOf(uiUrl)}/namespaces/${encodeURIComponent(namespace)}/workflows?query=${encodeURIComponent(query)}`;
}
