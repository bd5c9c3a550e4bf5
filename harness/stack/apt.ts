import { hasCommand, runCommand } from './run-command';

let aptUpdated = false;

/**
 * Installs Debian packages for commands that are missing. Only root may install; anyone
 * else gets a message naming the package to install.
 * @param commands command name → Debian package that provides it
 */
export async function ensureAptPackages(
  commands: Record<string, string>,
  log: (m: string) => void,
): Promise<void> {
  const missing: string[] = [];
  for (const [command, pkg] of Object.entries(commands)) {
    if (!(await hasCommand(command))) missing.push(pkg);
  }
  if (missing.length > 0) await installAptPackages(missing, log);
}

/** apt-get install, as root only; anyone else gets an error naming the packages. */
export async function installAptPackages(
  packages: string[],
  log: (m: string) => void,
): Promise<void> {
  if (process.getuid?.() !== 0) {
    throw new Error(
      `missing system packages: ${packages.join(', ')} (install them with apt-get, or run as root)`,
    );
  }
  log(`installing Debian packages: ${packages.join(', ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!aptUpdated) {
    await runCommand('apt-get', ['update', '-q'], { env });
    aptUpdated = true;
  }
  await runCommand('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...packages], {
    env,
  });
}
