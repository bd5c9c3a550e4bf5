import { reportStack } from '../stack/report';
import { startPreparedStack } from './dev-stack';

/**
 * `npm run stack`: starts the local stack, prepares it (migrations and topics, as
 * `npm run setup` does against configured services), prints its addresses and returns, leaving
 * it running until `npm run stack:stop`.
 */
startPreparedStack()
  .then(reportStack)
  .catch((err: unknown) => {
    process.stderr.write(`${(err as Error).message ?? String(err)}\n`);
    process.exit(1);
  });
