/** One versioned schema change. Versions are applied in order, each once, each in a transaction. */
export interface Migration {
  version: number;
  name: string;
  up: string;
}
