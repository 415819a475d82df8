import * as yup from 'yup';
import { createKnownError } from '../../protocol/errors/create.js';
import type { ApiRequest } from './types.js';

/**
 * Request validation with yup, the library the service itself uses, so SCHEMA_ERROR lines read
 * the same (`body.email must be a valid email`, `body must be defined`…). Unknown keys are refused
 * at every depth of object-typed fields (PROTOCOL.md §1.6).
 */
export { yup };

const unknownKeys = ({ path, unknown }: { path: string; unknown?: string }) =>
  `${path} contains unknown properties: ${unknown ?? ''}`;

/** An object schema that refuses unknown keys; absent unless `.defined()`. */
export function obj<S extends yup.ObjectShape>(shape: S) {
  return yup.object(shape).noUnknown(true, unknownKeys).default(undefined);
}

/** Free-form JSON (metadata, template content, WebAuthn payloads). */
export const anyJson = () => yup.mixed<NonNullable<unknown>>().nullable();

export const uuid = () => yup.string().uuid();
/** A user id: a UUID or `me`. */
export const userIdOrMe = () =>
  yup
    .string()
    .test(
      'user-id-or-me',
      '${path} must be a valid UUID',
      (value) => value === undefined || value === 'me' || yup.string().uuid().isValidSync(value),
    );
/**
 * A URL as the service checks one: two rules, both reported when both fail (`contains spaces`, then
 * `is not a valid URL`). Only the space character counts as a space; the URL parser drops tabs and
 * line breaks itself.
 */
export const url = () =>
  yup
    .string()
    .test('no-spaces', '${path} contains spaces', (value) => value == null || !value.includes(' '))
    .test('url', '${path} is not a valid URL', (value) => value == null || URL.canParse(value));
/** The "strict" e-mail of sign-up and OTP: no leading dot, a TLD of at least two characters. */
export const strictEmail = () =>
  yup
    .string()
    .test(
      'strict-email',
      '${path} must be a valid email',
      (v) => v === undefined || /^[^.\s@][^\s@]*@[^\s@]+\.[^\s@]{2,}$/.test(v),
    );
export const email = () => yup.string().email();
/** A string that may be absent but not empty (yup lets `''` pass most rules, as the service's own check catches). */
export const nonEmpty = (schema: yup.StringSchema<string | undefined>) =>
  schema.test('non-empty', '${path} must not be empty', (v) => v !== '');
/** A verification code of §7: exactly 45 characters. */
export const code45 = () => yup.string().length(45);

/**
 * The bot-challenge fields of sign-up, OTP and OAuth authorize. The service verifies the token with Cloudflare Turnstile
 * unless bot challenges are off; the emulator, like the service in development with them off, takes and ignores them.
 */
export const botChallengeFields = () => ({
  bot_challenge_token: yup.string(),
  bot_challenge_phase: yup.string().oneOf(['invisible', 'visible']),
  bot_challenge_unavailable: yup.string().oneOf(['true']),
});

export interface RequestSchemas {
  body?: yup.AnySchema;
  query?: yup.AnySchema;
  params?: yup.AnySchema;
}

type Out<S> = S extends yup.AnySchema ? yup.InferType<S> : undefined;

/** Validates and coerces body/query/params; throws SCHEMA_ERROR with one line per failure. */
export function validate<S extends RequestSchemas>(
  req: ApiRequest,
  schemas: S,
): { body: Out<S['body']>; query: Out<S['query']>; params: Out<S['params']> } {
  // In the order of the service's CRUD request schema (body, params, query), which orders its error lines.
  const shape = {
    body: schemas.body ?? yup.mixed(),
    params: schemas.params ?? yup.mixed(),
    query: schemas.query ?? obj({}).defined(),
  };
  const input = { body: req.body, query: req.query, params: req.params };
  // yup looks fields up by key on plain objects and casts by calling toString/valueOf: keys such as
  // `toString` and objects where text is expected would reach its internals. Caught here first.
  const hazards = inputHazards(shape, input);
  if (hazards.length > 0) throw schemaError(req, hazards);
  try {
    return yup.object(shape).validateSync(input, { abortEarly: false, stripUnknown: false }) as never;
  } catch (error) {
    if (error instanceof yup.ValidationError) throw schemaError(req, error.errors);
    // Whatever else the library trips over is still the request's fault, never a 500.
    throw schemaError(req, [
      `the request could not be read (${error instanceof Error ? error.message : String(error)})`,
    ]);
  }
}

const SCALAR_TYPES = new Set(['string', 'number', 'boolean', 'date']);

/** Keys a schema does not define but would find on Object.prototype, and objects given for scalars. */
export function inputHazards(
  shape: Record<string, yup.AnySchema>,
  value: Record<string, unknown>,
  path = '',
): string[] {
  const problems: string[] = [];
  const visit = (schema: yup.AnySchema | undefined, node: unknown, at: string): void => {
    if (schema === undefined || node === null || node === undefined) return;
    if (SCALAR_TYPES.has(schema.type) && typeof node === 'object') {
      problems.push(
        `${at} must be a \`${schema.type}\` type, but the final value was an ${Array.isArray(node) ? 'array' : 'object'}.`,
      );
      return;
    }
    if (schema instanceof yup.ArraySchema && Array.isArray(node)) {
      const inner = (schema as yup.ArraySchema<unknown[] | undefined, yup.AnyObject>).innerType as
        yup.AnySchema | undefined;
      node.forEach((item, i) => visit(inner, item, `${at}[${i}]`));
      return;
    }
    if (schema instanceof yup.ObjectSchema && typeof node === 'object' && !Array.isArray(node)) {
      const fields = (schema as yup.ObjectSchema<yup.AnyObject>).fields as Record<string, yup.AnySchema>;
      const inherited = Object.keys(node).filter((key) => !Object.hasOwn(fields, key) && key in fields);
      if (inherited.length > 0) problems.push(`${at} contains unknown properties: ${inherited.join(', ')}`);
      for (const key of Object.keys(node)) {
        if (Object.hasOwn(fields, key)) visit(fields[key], (node as Record<string, unknown>)[key], `${at}.${key}`);
      }
    }
  };
  for (const [key, schema] of Object.entries(shape)) visit(schema, value[key], path === '' ? key : `${path}.${key}`);
  return problems;
}

export function schemaError(req: ApiRequest, lines: string[]) {
  const message = `Request validation failed on ${req.method} ${req.url.pathname}:\n${lines.map((l) => `  - ${l}`).join('\n')}`;
  return createKnownError('SCHEMA_ERROR', { message });
}
