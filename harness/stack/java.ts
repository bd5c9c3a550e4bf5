import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCommand } from './run-command';

/** The oldest Java Apicurio Registry 3 runs on (Debian 12's default, 17, refuses it). */
export const MIN_REGISTRY_JAVA = 21;

/** Where JDKs live on Debian (Temurin's packages and OpenJDK's alike). */
const JVM_DIR = '/usr/lib/jvm';

/** A Java too old, or none: names what would do. */
export class JavaNotFoundError extends Error {
  override readonly name = 'JavaNotFoundError';
}

/** The major version `java -version` reports (`17.0.15` → 17, `1.8.0` → 8), or undefined. */
export function javaMajorOf(versionOutput: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(versionOutput);
  if (!match) return undefined;
  const first = Number(match[1]);
  return first === 1 ? Number(match[2]) : first;
}

async function majorOf(java: string): Promise<number | undefined> {
  try {
    return javaMajorOf(await runCommand(java, ['-version']));
  } catch {
    return undefined;
  }
}

/** Every Java to try, in order: JAVA_HOME's, the one on PATH, then each JDK in /usr/lib/jvm. */
function candidates(env: NodeJS.ProcessEnv): string[] {
  const found: string[] = [];
  if (env.JAVA_HOME) found.push(join(env.JAVA_HOME, 'bin', 'java'));
  found.push('java');
  if (existsSync(JVM_DIR))
    for (const dir of readdirSync(JVM_DIR).sort().reverse())
      if (existsSync(join(JVM_DIR, dir, 'bin', 'java')))
        found.push(join(JVM_DIR, dir, 'bin', 'java'));
  return found;
}

const cache = new Map<number, Promise<string>>();

/**
 * A Java of at least `major`, found on this machine (the first of JAVA_HOME, PATH and
 * /usr/lib/jvm that is new enough); JavaNotFoundError names what was found otherwise.
 */
export function findJava(major: number, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  let found = cache.get(major);
  if (!found) {
    found = (async () => {
      const seen: string[] = [];
      for (const java of candidates(env)) {
        const version = await majorOf(java);
        if (version !== undefined && version >= major) return java;
        if (version !== undefined) seen.push(`${java} (${version})`);
      }
      throw new JavaNotFoundError(
        `the schema registry needs Java ${major} or newer; found ${seen.join(', ') || 'none'}: install a JDK ${major}+ (e.g. Temurin) under ${JVM_DIR} or set JAVA_HOME, or set ONCEFLOW_SCHEMA_REGISTRY=off`,
      );
    })();
    cache.set(major, found);
  }
  return found;
}
