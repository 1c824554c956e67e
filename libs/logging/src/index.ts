export { createLogger, type Logger, type LoggerOptions } from './create-logger.js';
