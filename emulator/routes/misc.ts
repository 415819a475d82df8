import { StatusError } from '../errors.js';
import type { Router } from '../http/router.js';
import { json, text } from '../http/types.js';
import { obj, validate, yup } from '../http/validate.js';
import { projectJwks } from '../auth/jwt.js';
import { primaryChannel } from '../state/users.js';

/** The key set's two switches: restricted users' key, and anonymous users' (with restricted users'). */
const jwksQuery = obj({
  include_restricted: yup.string().oneOf(['true', 'false']),
  include_anonymous: yup.string().oneOf(['true', 'false']),
}).defined();

/** Root, JWKS, feature support and version check (PROTOCOL.md §5.9). */
export function registerMiscRoutes(router: Router): void {
  router.add('GET', '/', (req) => {
    validate(req, {});
    const lines = [
      'Welcome to the Stack API endpoint! Please refer to the documentation at https://docs.stack-auth.com.',
      '',
    ];
    const auth = req.auth;
    if (auth === null) lines.push('Authentication: None');
    else {
      const user = auth.user;
      const who = user === null ? 'None' : (primaryChannel(auth.project, user.id)?.value ?? user.id);
      lines.push(
        `Authentication: ${auth.type[0]!.toUpperCase()}${auth.type.slice(1)}`,
        `  Project: ${auth.project.id}`,
        `  User: ${who}`,
      );
    }
    return text(lines.join('\n'));
  });

  router.add('GET', '/projects/:project_id/.well-known/jwks.json', (req) => {
    const { query } = validate(req, { query: jwksQuery });
    const project = req.env.store.project(req.params.project_id ?? '');
    if (!project) throw new StatusError(404, 'Project not found');
    const keys = projectJwks(project, {
      restricted: query.include_restricted === 'true',
      anonymous: query.include_anonymous === 'true',
    });
    // Cacheable for an hour, as the service answers: keys change only when rotated.
    return json(keys, 200, { 'cache-control': 'public, max-age=3600' });
  });

  router.add(
    'POST',
    '/check-feature-support',
    (req) => {
      const body = req.body as { feature_name?: unknown } | undefined;
      const name = typeof body?.feature_name === 'string' ? body.feature_name : 'This feature';
      return text(`${name} is not yet supported. Please reach out to Stack support for more information.`);
    },
    { write: false },
  );

  router.add(
    'POST',
    '/check-version',
    (req) => {
      const { body } = validate(req, { body: obj({ clientVersion: yup.string().defined() }).defined() });
      const match = /^(\d+)\.(\d+)\.(\d+)/.exec(body.clientVersion);
      if (!match)
        return json({
          upToDate: false,
          error: `The client version ${body.clientVersion} is not a valid version.`,
          severe: true,
        });
      // The emulator speaks the protocol of service 2.7.27.
      const [major, minor, patch] = [Number(match[1]), Number(match[2]), Number(match[3])];
      if (major !== 2 || minor !== 7)
        return json({
          upToDate: false,
          error: `This service speaks 2.7.x; the client is ${body.clientVersion}.`,
          severe: true,
        });
      if (patch < 27) return json({ upToDate: false, error: `A newer client (2.7.27) is available.`, severe: false });
      return json({ upToDate: true });
    },
    { write: false },
  );
}
