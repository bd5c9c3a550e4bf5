import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stackPaths } from '../../harness/stack/paths';
import { runCommand } from '../../harness/stack/run-command';

/** Maven settings that read every repository from Maven Central (test/support/java/serdes). */
const SETTINGS = join(__dirname, 'java', 'serdes', 'settings.xml');

const resolved = new Map<string, Promise<string>>();

/**
 * The runtime jars of the POM in `pomDir`, resolved once from Maven Central into the stack's
 * cache folder `name` (kept across runs); resolves to that folder.
 */
export function mavenJars(name: string, pomDir: string): Promise<string> {
  let jars = resolved.get(name);
  if (!jars) {
    jars = (async () => {
      const dir = join(stackPaths().cache, name);
      const marker = join(dir, '.complete');
      if (!existsSync(marker)) {
        await runCommand('mvn', [
          '-q',
          '-B',
          '-s',
          SETTINGS,
          '-f',
          join(pomDir, 'pom.xml'),
          'org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies',
          `-DoutputDirectory=${dir}`,
          '-DincludeScope=runtime',
        ]);
        writeFileSync(marker, `${readdirSync(dir).length} jars\n`);
      }
      return dir;
    })();
    resolved.set(name, jars);
  }
  return jars;
}
