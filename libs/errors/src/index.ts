export { AppError, CATALOGUE, isAppError, isRetriable, type ErrorCode } from './app-error.js';
