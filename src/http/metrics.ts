import client from 'prom-client';

/** Prometheus metrics of this process, served at /metrics. */
export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry, prefix: 'portcullis_' });

export const httpDuration = new client.Histogram({
  name: 'portcullis_http_request_duration_seconds',
  help: 'HTTP requests by route (Hono route pattern or RPC procedure), method and status',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const rpcDuration = new client.Histogram({
  name: 'portcullis_rpc_duration_seconds',
  help: 'Connect / gRPC / gRPC-web calls by procedure and result code',
  labelNames: ['procedure', 'code'] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const dbUp = new client.Gauge({
  name: 'portcullis_database_up',
  help: '1 when the last readiness check reached the database, else 0',
  registers: [registry],
});

export const dbPoolMax = new client.Gauge({
  name: 'portcullis_database_pool_max_connections',
  help: 'Configured database connections of this process',
  registers: [registry],
});

export const replicaLag = new client.Gauge({
  name: 'portcullis_database_replica_lag_seconds',
  help:
    'Seconds the read replicas were behind the primary at their last check; -1 when unknown ' +
    '(unreachable, or behind every position sampled within the max lag)',
  registers: [registry],
});

export const replicaFallbacks = new client.Counter({
  name: 'portcullis_database_replica_fallbacks_total',
  help: 'Reads a read replica failed (outage or conflict with replay) that ran again on the primary',
  registers: [registry],
});
