// How onceflow bundles workflow code, in one place: the worker's bundling child process
// (./bundle-workflows.ts) and the tests' in-process bundles use these options, so the build ID
// (the bundle's hash, ./build-id.ts) of the same code is the same wherever it is bundled.
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { BundleOptions } from '@temporalio/worker';
import { WORKFLOW_TRACING_MODULE } from '../tracing/worker';

type WebpackConfig = Parameters<NonNullable<BundleOptions['webpackConfigHook']>>[0];

/** Where a generated entry is named from in the bundle: its folder varies with TMPDIR. */
const ENTRY_SOURCE_PREFIX = 'onceflow-workflow-entry';

/**
 * Webpack settings for bundling a generated entry: the SDK's own entrypoint is written beside
 * the entry (in the cache folder, outside any project) and requires @temporalio/workflow, so
 * the folder that holds the engine's @temporalio/workflow is searched too. Every domain's
 * modules still resolve their imports from where they are.
 */
export function resolveFromEngine<C extends { resolve?: { modules?: string[] } }>(config: C): C {
  const packages = resolve(dirname(require.resolve('@temporalio/workflow/package.json')), '../..');
  const modules = config.resolve?.modules ?? ['node_modules'];
  return { ...config, resolve: { ...config.resolve, modules: [...modules, packages] } };
}

/**
 * A module's name in the bundle, the same on every host: its path inside the nearest folder
 * with a package.json, after that package's name (`onceflow/src/workflows/run-step.ts`,
 * `@temporalio/workflow/lib/internals.js`); a generated entry (in `entryDir`, a folder under
 * TMPDIR whose file names hash absolute paths) by its role alone.
 */
export function stableSourceName(path: string, entryDir: string): string {
  // A module the bundler replaced by nothing: `ignored|<folder of the requester>|<request>`.
  if (path.startsWith('ignored|')) return `ignored/${path.split('|').at(-1)}`;
  // Webpack's own runtime modules (`webpack/runtime/global`) have no file.
  if (!isAbsolute(path)) return path;
  if (dirname(path) === entryDir)
    return `${ENTRY_SOURCE_PREFIX}/${basename(path).replace(/^entry-[0-9a-f]+/, 'entry')}`;
  const root = packageRootOf(dirname(path));
  if (!root) return `${ENTRY_SOURCE_PREFIX}/${basename(path)}`;
  return `${root.name}/${relative(root.dir, path).split(sep).join('/')}`;
}

const packageRoots = new Map<string, { dir: string; name: string } | undefined>();

/** The nearest folder at or above `dir` with a package.json, and its package's name. */
function packageRootOf(dir: string): { dir: string; name: string } | undefined {
  if (packageRoots.has(dir)) return packageRoots.get(dir);
  const manifest = join(dir, 'package.json');
  let found: { dir: string; name: string } | undefined;
  if (existsSync(manifest)) {
    const name = (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name;
    found = { dir, name: typeof name === 'string' && name ? name : basename(dir) };
  } else if (dirname(dir) !== dir) found = packageRootOf(dirname(dir));
  packageRoots.set(dir, found);
  return found;
}

/**
 * The SDK's webpack settings made reproducible: no absolute or working-folder path reaches
 * the bundle. Modules are numbered in graph order (not named by their path from the working
 * folder), no path comments, and the inline source map names each source by
 * stableSourceName and leaves the sources' text out (stack traces need only names and
 * lines; the entry's text holds absolute paths).
 */
export function reproducibleWebpackConfig(entryDir: string) {
  return (config: WebpackConfig): WebpackConfig => {
    const resolved = resolveFromEngine(config);
    return {
      ...resolved,
      devtool: 'inline-nosources-cheap-module-source-map',
      optimization: { ...resolved.optimization, moduleIds: 'natural', chunkIds: 'natural' },
      output: {
        ...resolved.output,
        pathinfo: false,
        // Not `[fullhash]` or `[contenthash]`: both hash absolute paths (the name is in the map).
        filename: 'workflow-bundle.js',
        devtoolModuleFilenameTemplate: (info: { absoluteResourcePath: string }) =>
          `webpack://${stableSourceName(info.absoluteResourcePath, entryDir)}`,
      },
    };
  };
}

/** A logger for the bundler that says only its warnings and errors, through `write`. */
function quietLogger(write: (line: string) => void): NonNullable<BundleOptions['logger']> {
  return {
    log: () => undefined,
    trace: () => undefined,
    debug: () => undefined,
    info: () => undefined,
    warn: (message) => write(message),
    error: (message) => write(message),
  };
}

/**
 * What bundleWorkflowCode is called with for a generated entry (./workflow-bundle.ts,
 * workflowEntry). The OpenTelemetry workflow interceptors are always in: whether a worker
 * exports spans (ONCEFLOW_TRACING) is its own setting, outside the build, so a traced and an
 * untraced host run one build, whose runs issue the same commands on either.
 */
export function workflowBundleOptions(
  entry: string,
  write: (line: string) => void = () => undefined,
): BundleOptions {
  return {
    workflowsPath: entry,
    workflowInterceptorModules: [WORKFLOW_TRACING_MODULE],
    webpackConfigHook: reproducibleWebpackConfig(dirname(entry)),
    logger: quietLogger(write),
  };
}
