export { WORKER_CONTENT_SECURITY_POLICY } from '../protocol/workerPolicy.js';
