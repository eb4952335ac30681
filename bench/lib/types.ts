/** One measured figure of a scenario, as it appears in the report. */
export interface Metric {
  name: string;
  value: number;
  unit: string;
  /** the target of the issue that asked for it: `>= 1500` or `<= 15` */
  target?: { op: '>=' | '<='; value: number };
  /** the same work measured on the peer (node-oidc-provider) in the same run */
  peer?: number;
  p50?: number;
  p95?: number;
  p99?: number;
  errors?: number;
}

export interface ScenarioResult {
  scenario: string;
  metrics: Metric[];
  notes: string[];
}

export interface BenchOptions {
  /** write a CPU profile of the server process */
  profile: boolean;
  /** base PostgreSQL URL on which scratch databases are created */
  databaseUrl: string;
  /** seconds each load phase measures */
  duration: number;
  progress: (line: string) => void;
}
