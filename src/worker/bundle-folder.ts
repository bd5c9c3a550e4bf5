// Where the worker's workflow bundle is built and cached. The bundle's hash is the worker's
// build ID and its code is what the worker runs, so a file found there is taken as this
// worker's code: the folder must be one nobody but this user can write. A folder under the
// shared temp folder with a predictable name, made or opened to others by someone else, would
// let them choose the worker's code.
import { lstatSync, mkdirSync, mkdtempSync, type Stats } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Name of the default folder under the temp folder; the user's ID follows it. */
const FOLDER_PREFIX = 'onceflow-workflow-bundles';

/**
 * A bundle folder that others could write (or that is not a folder at all): whoever writes
 * there would choose the worker's code. Not retryable: the folder has to change.
 */
export class BundleFolderError extends Error {
  override readonly name = 'BundleFolderError';
  constructor(
    readonly folder: string,
    readonly reason: string,
  ) {
    super(
      `workflow bundle folder ${folder} ${reason}: a file another user puts there would become this worker's code; give a folder only this user can write (mode 0700)`,
    );
  }
}

/**
 * Why a folder with these stats (read without following a link) is not this user's alone, or
 * undefined when it is: a real folder, owned by `uid`, writable by nobody else.
 */
export function whyNotPrivate(stats: Stats, uid: number): string | undefined {
  if (stats.isSymbolicLink()) return 'is a symbolic link';
  if (!stats.isDirectory()) return 'is not a folder';
  if (stats.uid !== uid) return `is owned by user ${stats.uid}, not by this process's ${uid}`;
  const mode = stats.mode & 0o777;
  if ((mode & 0o022) !== 0) return `is writable by others (mode 0${mode.toString(8)})`;
  return undefined;
}

/** Makes `folder` (mode 0700) unless it exists; then why it is not private, if it is not. */
function checkFolder(folder: string, uid: number): string | undefined {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch (err) {
    // Something other than a folder is there (lstat below says what).
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  return whyNotPrivate(lstatSync(folder), uid);
}

/** Per temp folder: the folder this process fell back to (made once, not once per call). */
const fallbacks = new Map<string, string>();

/**
 * The folder bundles are built and cached in: `given`, which must be this user's alone (else
 * a BundleFolderError), or by default `<tmpdir>/onceflow-workflow-bundles-<uid>`, made with
 * mode 0700. When that one is not this user's alone (someone made it first, or opened it), a
 * new folder of this process (mkdtemp, 0700) is used instead, and `warn` told why: the worker
 * then builds its bundle at each start, but never takes another's.
 *
 * @example
 * bundleFolder('/var/cache/onceflow') // '/var/cache/onceflow', once checked
 */
export function bundleFolder(
  given?: string,
  warn: (message: string) => void = (m) => process.emitWarning(m, 'BundleFolderWarning'),
): string {
  const uid = process.getuid?.();
  if (given !== undefined) {
    const why = uid === undefined ? undefined : checkFolder(given, uid);
    if (why) throw new BundleFolderError(given, why);
    return given;
  }
  const temp = tmpdir();
  const known = fallbacks.get(temp);
  if (known) return known;
  if (uid !== undefined) {
    const shared = join(temp, `${FOLDER_PREFIX}-${uid}`);
    const why = checkFolder(shared, uid);
    if (!why) return shared;
    warn(`workflow bundle folder ${shared} ${why}: building in a folder of this process instead`);
  }
  // mkdtemp makes it with mode 0700 and a name nobody could predict; `-own-` keeps it apart
  // from the per-user name (a random suffix may start with a digit).
  const own = mkdtempSync(join(temp, `${FOLDER_PREFIX}-own-`));
  fallbacks.set(temp, own);
  return own;
}
