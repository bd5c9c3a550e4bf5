import { strict as assert } from 'node:assert';
import { ConfigError, loadConfig } from '../../../src/config';
import { zipkinSettings } from '../../../harness/stack/zipkin';

describe('tracing settings', () => {
  it('are off by default, with OTLP as the exporter', () => {
    const { tracing } = loadConfig({ ONCEFLOW_ENCRYPTION: 'off' });
    assert.equal(tracing.on, false);
    assert.equal(tracing.exporter, 'otlp');
    assert.equal(tracing.traceUrl, undefined);
  });

  it("take the local stack's Zipkin as the stack records it", () => {
    const { tracing } = loadConfig({ ONCEFLOW_ENCRYPTION: 'off', ...zipkinSettings(19411) });
    assert.deepEqual(tracing, {
      on: true,
      exporter: 'zipkin',
      otlpEndpoint: undefined,
      zipkinEndpoint: 'http://127.0.0.1:19411/api/v2/spans',
      traceUrl: 'http://127.0.0.1:19411/zipkin/traces/{traceId}',
    });
  });

  it('name the setting that is wrong', () => {
    for (const [name, value] of [
      ['ONCEFLOW_TRACING', 'yes'],
      ['OTEL_TRACES_EXPORTER', 'jaeger'],
      ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
      ['ONCEFLOW_TRACE_URL', 'http://127.0.0.1:9411/zipkin/traces/'],
    ] as const) {
      assert.throws(
        () => loadConfig({ ONCEFLOW_ENCRYPTION: 'off', [name]: value }),
        (err: unknown) => err instanceof ConfigError && err.message.includes(name),
        name,
      );
    }
  });
});
