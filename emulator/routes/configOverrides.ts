import { StatusError } from '../errors.js';
import { ADMIN, requireAccess, SERVER } from '../http/access.js';
import type { Router } from '../http/router.js';
import { json, success, type ApiRequest } from '../http/types.js';
import { anyJson, obj, validate, yup } from '../http/validate.js';
import {
  applyToConfigRecord,
  configOverrides,
  isJsonObject,
  mergedOverrides,
  mergeOverride,
  renderedConfig,
  resetKeys,
  type ConfigLevel,
  type JsonObject,
} from '../state/configOverrides.js';

const levelParams = obj({
  level: yup
    .string()
    .oneOf(['project', 'branch', 'environment'] as const)
    .defined(),
}).defined();

/** The level named in the path; server access may manage the branch's overrides only, as on the service. */
function levelOf(req: ApiRequest): { level: ConfigLevel; auth: ReturnType<typeof requireAccess> } {
  const auth = requireAccess(req, SERVER);
  const { params } = validate(req, { params: levelParams, body: yup.mixed() });
  if (auth.type === 'server' && params.level !== 'branch')
    throw new StatusError(403, 'Server access can only manage branch config overrides.');
  return { level: params.level, auth };
}

function parseConfig(text: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new StatusError(400, 'Invalid config JSON');
  }
  if (!isJsonObject(parsed)) throw new StatusError(400, 'The config must be a JSON object.');
  return parsed;
}

/**
 * The service's config overrides (`/internal/config/override/{project,branch,environment}`, under `/api/latest`): read,
 * replaced (PUT) or merged (PATCH), with the keys the emulator models carried into the project's config.
 */
export function registerConfigOverrideRoutes(router: Router): void {
  router.add('GET', '/internal/config', (req) => {
    const auth = requireAccess(req, ADMIN);
    validate(req, {});
    return json({ config_string: JSON.stringify(renderedConfig(auth.project)) });
  });

  router.add('GET', '/internal/config/override/:level', (req) => {
    const { level, auth } = levelOf(req);
    return json({ config_string: JSON.stringify(configOverrides(auth.project)[level]) });
  });

  router.add('PATCH', '/internal/config/override/:level', (req) => {
    const { level, auth } = levelOf(req);
    const { body } = validate(req, {
      params: levelParams,
      body: obj({ config_override_string: yup.string().defined() }).defined(),
    });
    const override = parseConfig(body.config_override_string);
    mergeOverride(configOverrides(auth.project)[level], override);
    applyToConfigRecord(auth.project.config, override, mergedOverrides(auth.project));
    return success();
  });

  router.add('PUT', '/internal/config/override/:level', (req) => {
    const { level, auth } = levelOf(req);
    const { body } = validate(req, {
      params: levelParams,
      body: obj({ config_string: yup.string().defined(), source: anyJson() }).defined(),
    });
    const config = parseConfig(body.config_string);
    if (level === 'branch' && !isJsonObject(body.source))
      throw new StatusError(400, 'source is required for branch level config');
    const levels = configOverrides(auth.project);
    levels[level] = {};
    mergeOverride(levels[level], config);
    if (level === 'branch' && isJsonObject(body.source)) levels.branch_source = body.source as JsonObject;
    applyToConfigRecord(auth.project.config, config, mergedOverrides(auth.project));
    return success();
  });

  router.add('POST', '/internal/config/override/:level/reset-keys', (req) => {
    const { level, auth } = levelOf(req);
    const { body } = validate(req, {
      params: levelParams,
      body: obj({ keys: yup.array(yup.string().defined()).defined() }).defined(),
    });
    resetKeys(configOverrides(auth.project)[level], body.keys);
    return success();
  });

  router.add('GET', '/internal/config/source', (req) => {
    const auth = requireAccess(req, SERVER);
    validate(req, {});
    return json({ source: configOverrides(auth.project).branch_source });
  });

  router.add('DELETE', '/internal/config/source', (req) => {
    const auth = requireAccess(req, SERVER);
    validate(req, {});
    configOverrides(auth.project).branch_source = { type: 'unlinked' };
    return success();
  });
}
