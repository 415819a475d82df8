/**
 * A wrong project id or publishable key used to show nothing until the first sign-in, which then failed naming a
 * header the app never set. When a tab first asks (its connection does, right after connecting), the broker reads the
 * project as a client (`GET /projects/current`, no user token: nothing of the session is involved), once for all
 * tabs; a refusal that names the configuration becomes a sentence naming the option to fix, for the tabs' consoles
 * and the status. No answer (offline) is no verdict: the next tab to ask asks again.
 */
import { isKnownError } from '../../protocol/errors/knownError.js';

export interface ConfigCheckOptions {
  config: { baseUrl: string; projectId: string };
  /** Reads the project with the config's keys. */
  readProject(): Promise<unknown>;
  /** A problem found (it is added to the broker's warnings). */
  onProblem(sentence: string): void;
}

/** The sentence for a refusal that says the configuration is wrong, or null for any other outcome. */
export function configProblemOf(error: unknown, config: { baseUrl: string; projectId: string }): string | null {
  const where = `${config.baseUrl}`;
  if (isKnownError(error, 'CURRENT_PROJECT_NOT_FOUND'))
    return `No project has the ID ${config.projectId} at ${where}: check the projectId option of createBrokerClient (the project's settings show its ID).`;
  if (isKnownError(error, 'PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT'))
    return `Project ${config.projectId} requires a publishable client key: set the publishableClientKey option of createBrokerClient.`;
  if (isKnownError(error, 'INVALID_PUBLISHABLE_CLIENT_KEY'))
    return `The service at ${where} refused the publishable client key for project ${config.projectId}: check the publishableClientKey option of createBrokerClient.`;
  return null;
}

/** The check, run once per broker (again after a try that got no verdict); resolves with the problems found. */
export function configCheck(options: ConfigCheckOptions): () => Promise<string[]> {
  let verdict: Promise<string[]> | null = null;
  return () =>
    (verdict ??= options.readProject().then(
      () => [],
      (error: unknown) => {
        const problem = configProblemOf(error, options.config);
        if (problem === null) {
          verdict = null;
          return [];
        }
        options.onProblem(problem);
        return [problem];
      },
    ));
}
