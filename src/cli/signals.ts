/** Resolves with the first SIGTERM or SIGINT: a stop asked by the operator or the orchestrator. */
export function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
}
