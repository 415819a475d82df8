export * from '../protocol/models.js';
