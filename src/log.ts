import pino, { type Logger } from 'pino';

/** Structured JSON logs on stdout. Secrets (tokens, passwords) are never passed to the logger. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { pid: process.pid },
    redact: { paths: ['req.headers.authorization', '*.password', '*.token', '*.client_secret'], remove: true },
  });
}
