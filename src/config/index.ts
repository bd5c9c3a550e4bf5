/**
 * Configuration: the only place that reads process.env for application settings; everything
 * else receives a typed Config. The settings are declared once, in ./settings.ts.
 */
export { ConfigError } from './config-error';
export { CONFIG_KEYS, DEFAULTS, shownDefaultOf, type Env, type SettingName } from './env';
export {
  loadConfig,
  requireEncryptionKey,
  type Config,
  type EncryptionConfig,
  type LoadConfigOptions,
  type TemporalTlsConfig,
} from './load';
export type { ConfigOrigin, SettingSource } from './sources';
export { redactConfig, redactUrl } from './redact';
export { SETTINGS } from './settings';
export type { SettingSpec } from './setting-spec';
