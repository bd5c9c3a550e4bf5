/**
 * True when a process with this pid exists (signal 0 checks without signalling; EPERM means
 * it exists but belongs to another user). Shared by the stack, which starts and stops its
 * services by pid, and the config module, which only uses a local stack that is running.
 */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
